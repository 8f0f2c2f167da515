import { Idempotent } from '../../shared/idempotency/idempotency';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ValidationFailedError } from '../../shared/errors/domain-error';
import { AppConfig } from '../../shared/config/app-config';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { publicBaseUrl } from '../../shared/http/public-url';
import { reply } from '../../shared/http/envelope';
import type { EnvelopeReply } from '../../shared/http/envelope';
import { DeleteFileCommand } from './commands/delete-file/delete-file.command';
import { RegisterFileCommand } from './commands/register-file/register-file.command';
import { contentDisposition } from './domain/content-disposition';
import { isSafeInline } from './domain/file-kind';
import {
  DeletedFileDto,
  FILE_EXAMPLE,
  FileDto,
  FileListDto,
  ListFilesRequestDto,
  UPLOAD_BODY_SCHEMA,
  UPLOADED_EXAMPLE,
  UploadedFileDto,
  UploadFileRequestDto,
} from './dto/file.dto';
import { GetFileContentQuery } from './queries/get-file-content/get-file-content.query';
import { ListFilesQuery } from './queries/list-files/list-files.query';
import { FileUploadInterceptor } from './upload/file-upload.interceptor';
import type { UploadedFile } from './upload/streaming-storage-engine';

const CONTENT_ACCESS =
  'The content URL is served like every other call: it needs an API key of the same organization and mode ' +
  "(read-only keys are fine); another organization's or the other mode's file is 404.";

@ApiTags('Files')
@Controller('files')
export class FilesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly appConfig: AppConfig,
  ) {}

  @Post('upload')
  @HttpCode(200)
  @Authenticated({ write: true })
  @Idempotent()
  @UseInterceptors(FileUploadInterceptor)
  @ApiOperation({
    summary: 'Upload a file',
    description:
      'multipart/form-data with the part `file` (the bytes) and the optional text field `name`. The upload is streamed to ' +
      'storage and refused once it passes FILES_MAX_BYTES (default 10 MiB) with 413 `payload_too_large`. The `type` is detected ' +
      "from the content's magic bytes, never from the declared Content-Type or the name. A failed upload leaves nothing stored (one that failed after its file was recorded, only while storing an Idempotency-Key's answer, keeps both: the file is listed and its content served). " +
      CONTENT_ACCESS,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_BODY_SCHEMA, examples: { logo: { value: { file: '(the bytes of logo.png)', name: 'logo.png' } } } })
  @ApiEnvelope({ type: UploadedFileDto, example: UPLOADED_EXAMPLE, message: 'File uploaded' })
  @ApiErrors(400, 401, 403, 413)
  async upload(@RequiredCaller() caller: CallerContext, @Req() req: Request, @Body() body: UploadFileRequestDto): Promise<EnvelopeReply<UploadedFileDto>> {
    const file = req.file as UploadedFile | undefined;
    if (!file?.received) throw new ValidationFailedError({ file: 'is required: send the content in the multipart field "file"' });
    const name = body.name ?? file.originalname;
    if (!name) throw new ValidationFailedError({ name: 'is required when the file part has no filename' });
    const { id } = await this.commands.execute(new RegisterFileCommand(scopeOf(caller), name, file.received));
    // Committed: whatever fails after this (storing an idempotent answer) leaves the bytes to their record.
    file.recorded = true;
    return reply({ id, url: this.contentUrl(req, id) }, 'File uploaded');
  }

  @Get()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'List files', description: 'Newest first. `search` matches the name case-insensitively; filters combine with AND.' })
  @ApiEnvelope({ type: FileListDto, example: { items: [FILE_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false } })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @Req() req: Request, @Query() query: ListFilesRequestDto): Promise<EnvelopeReply<FileListDto>> {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await this.queries.execute(new ListFilesQuery(scopeOf(caller), { search: query.search, type: query.type }, limit, offset));
    const items: FileDto[] = page.items.map((f) => ({
      id: f.id,
      name: f.name,
      url: this.contentUrl(req, f.id),
      type: f.type,
      mime_type: f.mime_type,
      size: f.size,
      sha256: f.sha256,
      created_at: f.created_at,
    }));
    return reply({ ...page, items }, 'Files');
  }

  @Get(':id/content')
  @Authenticated()
  @ApiOperation({
    summary: "Download a file's bytes",
    description:
      'The raw bytes (not an envelope) with the detected Content-Type, Content-Length, a Content-Disposition carrying the name ' +
      '(RFC 5987 `filename*` plus a sanitised ASCII `filename`) and `X-Content-Type-Options: nosniff`. Images, audio, video, PDF and ' +
      'plain text are served inline, everything else as an attachment. Errors use the JSON envelope. ' +
      CONTENT_ACCESS,
  })
  @ApiParam({ name: 'id', example: FILE_EXAMPLE.id })
  @ApiResponse({ status: 200, description: "The file's bytes", content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } })
  @ApiErrors(401, 403, 404)
  async content(@RequiredCaller() caller: CallerContext, @Param('id') id: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    const file = await this.queries.execute(new GetFileContentQuery(scopeOf(caller), id));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', 'private, no-cache');
    return new StreamableFile(file.body, {
      type: file.mimeType,
      length: file.size,
      disposition: contentDisposition(isSafeInline(file.mimeType) ? 'inline' : 'attachment', file.name),
    }).setErrorHandler((_error, response) => {
      // Headers are out by the time the storage stream can fail: cut the response short.
      if (!response.destroyed) response.destroy?.();
    });
  }

  @Delete(':id')
  @HttpCode(200)
  @Authenticated({ write: true })
  @ApiOperation({ summary: 'Delete a file', description: 'Removes the stored bytes, then the record; the content URL answers 404 afterwards.' })
  @ApiParam({ name: 'id', example: FILE_EXAMPLE.id })
  @ApiEnvelope({ type: DeletedFileDto, example: { id: FILE_EXAMPLE.id }, message: 'File deleted' })
  @ApiErrors(400, 401, 403, 404)
  async remove(@RequiredCaller() caller: CallerContext, @Param('id') id: string): Promise<EnvelopeReply<DeletedFileDto>> {
    const deleted = await this.commands.execute(new DeleteFileCommand(scopeOf(caller), id));
    return reply(deleted, 'File deleted');
  }

  /** `<public base>/files/<id>/content` (see publicBaseUrl: never from an unvalidated Host). */
  private contentUrl(req: Request, id: string): string {
    return `${publicBaseUrl(this.appConfig, req)}/files/${encodeURIComponent(id)}/content`;
  }
}
