import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';
import { ConfigError } from '../../shared/config/app-config';
import { toBool, toInt } from '../../shared/config/env-transforms';
import { settingErrorLines } from '../../shared/config/setting-errors';

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Settings of file storage, read from the environment and checked at start-up (a bad value stops
 * the service with a message naming the variable). Local folder by default; S3-compatible object
 * storage when S3_BUCKET is set.
 */
export class FilesConfig {
  /** Folder of the local storage driver (used when S3_BUCKET is unset). */
  @IsString()
  @MinLength(1)
  FILES_DIR = './data/files';

  /** Largest accepted upload, in bytes; enforced while the upload streams. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5 * 1024 * 1024 * 1024)
  FILES_MAX_BYTES = DEFAULT_MAX_FILE_BYTES;

  /** Bucket of S3-compatible object storage; setting it selects the S3 driver. */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be a valid bucket name (3-63 lowercase letters, digits, dots, hyphens)' })
  S3_BUCKET?: string;

  /** Endpoint of an S3-compatible server (MinIO, R2, ...); unset for AWS S3. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s) URL' })
  S3_ENDPOINT?: string;

  @IsString()
  @MinLength(1)
  S3_REGION = 'us-east-1';

  /** Static credentials; when both are unset the AWS SDK's default credential chain is used. */
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style addressing (`endpoint/bucket/key`), needed by most self-hosted S3 servers. */
  @Transform(toBool)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  get driver(): 'local' | 's3' {
    return this.S3_BUCKET ? 's3' : 'local';
  }
}

const OPTIONAL = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];

export function loadFilesConfig(env: NodeJS.ProcessEnv = process.env): FilesConfig {
  const raw: Record<string, unknown> = {};
  for (const name of [...Object.keys(new FilesConfig()), ...OPTIONAL]) {
    if (env[name] !== undefined && env[name] !== '') raw[name] = env[name];
  }
  const config = plainToInstance(FilesConfig, raw);
  const errors = validateSync(config, { whitelist: false });
  const lines = settingErrorLines(errors);
  if (!!config.S3_ACCESS_KEY_ID !== !!config.S3_SECRET_ACCESS_KEY) {
    lines.push('  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  if (!config.S3_BUCKET && (config.S3_ENDPOINT || config.S3_ACCESS_KEY_ID)) {
    lines.push('  S3_BUCKET must be set when S3_ENDPOINT or S3 credentials are given');
  }
  if (lines.length) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  return config;
}
