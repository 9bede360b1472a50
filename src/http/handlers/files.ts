import { parseTrue, type DerivedKind } from '../../app/files';
import { authed, created, fileReply, ok, type AuthedInput } from '../operation';
import { readUploadForm, uploadRequestLimit } from '../upload-form';

/** The body is streamed from the request, part by part, straight to storage (see readUploadForm). */
export const UploadFile = authed<'UploadFile'>(async ({ request, query, session, app }) => {
  const form = readUploadForm(request, uploadRequestLimit(app.deps.config.get().FileSettings.MaxFileSize));
  try {
    return created(await app.files.upload(form, query.channel_id, session));
  } finally {
    // Refused before its form was read (uploads switched off): stop reading it and drop the rest.
    await form.return?.();
  }
});

const download = (kind: DerivedKind) => async ({ path, query, session, app }: AuthedInput<'GetFile'>) =>
  fileReply(await app.files.download(path.file_id, kind, session), parseTrue(query.download));

export const GetFile = authed<'GetFile'>(download('file'));
export const GetFileThumbnail = authed<'GetFileThumbnail'>(download('thumbnail'));
export const GetFilePreview = authed<'GetFilePreview'>(download('preview'));

export const GetFileInfo = authed<'GetFileInfo'>(async ({ path, session, app }) =>
  ok(await app.files.info(path.file_id, session), { headers: { 'Cache-Control': 'max-age=2592000, private' } }),
);

export const GetFileInfosForPost = authed<'GetFileInfosForPost'>(async ({ path, session, app }) => ok(await app.files.forPost(path.post_id, session)));
