import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';

export class DebugTokenDto {
  @ApiProperty({ example: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) organization_id: string;
  @ApiProperty({ example: 'Acme' }) organization_name: string;
  @ApiProperty({ enum: ['test', 'live'] }) mode: string;
  @ApiProperty({ example: 'sk_test_Ab12Cd' }) key_prefix: string;
  @ApiProperty() read_only: boolean;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
}

export class CreateOrganizationRequestDto {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 200 })
  @Length(1, 200)
  @IsString() // class-validator runs the decorator nearest the property first: the type check
  name: string;
}

export class CreatedOrganizationDto {
  @ApiProperty() organization_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'sk_test_...' }) test_key: string;
  @ApiProperty({ example: 'sk_live_...' }) live_key: string;
}

export class CreateApiKeyRequestDto {
  @ApiProperty({ enum: ['test', 'live'] })
  @IsIn(['test', 'live'])
  mode: 'test' | 'live';

  @ApiProperty({ required: false, default: false })
  @IsOptional()
  @Transform(({ obj }) => obj.read_only)
  @IsBoolean()
  read_only?: boolean;
}

export class RevokeApiKeyRequestDto {
  @ApiProperty({ description: 'The full key or its 14-character display prefix', example: 'sk_live_9hF2kL' })
  @Length(1, 200)
  @IsString()
  key: string;

  @ApiPropertyOptional({
    description:
      'The organization the key belongs to. Required with a display prefix (prefixes are not unique across organizations); ' +
      'with a full key, optional, and the key must then belong to it.',
    example: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
  })
  @IsOptional()
  @Length(1, 100)
  @IsString()
  organization_id?: string;
}

export class ApiKeyDto {
  @ApiProperty({ example: 'key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11' }) id: string;
  @ApiProperty({ description: 'The display prefix (the key itself is never shown again)', example: 'sk_test_Ab12Cd' }) prefix: string;
  @ApiProperty({ enum: ['test', 'live'] }) mode: string;
  @ApiProperty() read_only: boolean;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: null }) revoked_at: string | null;
  @ApiProperty({ description: 'A label people gave the key (empty when none)', example: 'Shop backend' }) name: string;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Set when the key was rolled: when it stops being accepted' })
  expires_at: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Set when the key was rolled: the key that replaced it' }) rolled_to: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-21 10:05:00', description: 'When a request last used it (at most a minute or two behind)' })
  last_used_at: string | null;
}

export class IssuedKeyDto {
  @ApiProperty({ example: 'key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11' }) id: string;
  @ApiProperty({ example: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }) organization_id: string;
  @ApiProperty({ enum: ['test', 'live'] }) mode: string;
  @ApiProperty() read_only: boolean;
  @ApiProperty({ example: 'sk_test_Ab12Cd' }) prefix: string;
  @ApiProperty({ description: 'The full key, shown only in this answer' }) key: string;
  @ApiProperty({ description: 'A label people gave the key (empty when none)', example: '' }) name: string;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
}

export class RevokedKeyDto {
  @ApiProperty() id: string;
  @ApiProperty() prefix: string;
  @ApiProperty() organization_id: string;
}

export class RevokedKeysDto {
  @ApiProperty({ type: [RevokedKeyDto] }) revoked: RevokedKeyDto[];
}
