// The files module's public surface: other modules and the composition root import only this file.
export { FilesModule } from './files.module';
export { RegisterFileCommand } from './commands/register-file/register-file.command';
export { DeleteFileCommand } from './commands/delete-file/delete-file.command';
export { GetFileContentQuery, type FileContent } from './queries/get-file-content/get-file-content.query';
export { GetFilesByIdsQuery } from './queries/get-files-by-ids/get-files-by-ids.query';
export { ListFilesQuery, type FileListView, type FileView } from './queries/list-files/list-files.query';
export { FileEvent, FILE_EVENT_TYPES, type FileEventType } from './events/file.events';
// Asked by the operator's preflight (cli doctor, and once after the service listens).
export { FilesPreflightQuery } from './queries/preflight/files-preflight.query';
