import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, ValidateBy } from 'class-validator';
import { LimitField, OffsetField } from '../../../shared/validation/decorators';
import { FILE_TYPES } from '../domain/file-kind';
import type { FileType } from '../domain/file-kind';
import { fileNameProblem, MAX_FILE_NAME_LENGTH } from '../domain/file-name';

const EXAMPLE_ID = 'file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f';
const EXAMPLE_URL = `https://api.example.com/files/${EXAMPLE_ID}/content`;

function IsFileName(): PropertyDecorator {
  return ValidateBy({
    name: 'isFileName',
    validator: {
      validate: (value) => typeof value === 'string' && fileNameProblem(value) === null,
      defaultMessage: (args) => `${args?.property} ${typeof args?.value === 'string' ? fileNameProblem(args.value) : 'must be a string'}`,
    },
  });
}

/** Text fields of the multipart upload (the `file` part itself is streamed to storage). */
export class UploadFileRequestDto {
  @ApiPropertyOptional({
    description: `Display name, stored as given (never used as a path), 1-${MAX_FILE_NAME_LENGTH} characters; defaults to the uploaded file's own name`,
    example: 'logo.png',
  })
  @IsOptional()
  @IsFileName()
  @IsString()
  name?: string;
}

export const UPLOAD_BODY_SCHEMA = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The content. Its type is detected from its bytes, not from the declared Content-Type.' },
    name: { type: 'string', maxLength: MAX_FILE_NAME_LENGTH, description: "Display name; defaults to the file part's filename", example: 'logo.png' },
  },
};

export class UploadedFileDto {
  @ApiProperty({ example: EXAMPLE_ID }) id: string;
  @ApiProperty({ example: EXAMPLE_URL, description: 'Serves the bytes (GET, with an API key of the same organization and mode)' }) url: string;
}

export const UPLOADED_EXAMPLE = { id: EXAMPLE_ID, url: EXAMPLE_URL };

export class FileDto {
  @ApiProperty({ example: EXAMPLE_ID }) id: string;
  @ApiProperty({ example: 'logo.png' }) name: string;
  @ApiProperty({ example: EXAMPLE_URL }) url: string;
  @ApiProperty({ enum: FILE_TYPES, example: 'image', description: "Derived from the content's magic bytes" }) type: FileType;
  @ApiProperty({ example: 'image/png', description: 'Detected from the content; text/plain or application/octet-stream when unrecognised' }) mime_type: string;
  @ApiProperty({ example: 48213, description: 'Size in bytes' }) size: number;
  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', description: 'SHA-256 of the content, hex' }) sha256: string;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
}

export const FILE_EXAMPLE = {
  id: EXAMPLE_ID,
  name: 'logo.png',
  url: EXAMPLE_URL,
  type: 'image',
  mime_type: 'image/png',
  size: 48213,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  created_at: '2026-11-21 10:00:00',
};

export class FileListDto {
  @ApiProperty({ type: [FileDto] }) items: FileDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class ListFilesRequestDto {
  @LimitField() limit?: number;
  @OffsetField() offset?: number;

  @ApiPropertyOptional({ description: 'Case-insensitive substring of the name', example: 'logo' })
  @Transform(({ value }) => (value === '' ? undefined : value))
  @IsOptional()
  @Length(1, 200)
  @IsString()
  search?: string;

  @ApiPropertyOptional({ enum: FILE_TYPES })
  @IsOptional()
  @IsIn(FILE_TYPES, { message: `$property must be one of ${FILE_TYPES.join(', ')}` })
  type?: FileType;
}

export class DeletedFileDto {
  @ApiProperty({ example: EXAMPLE_ID }) id: string;
}
