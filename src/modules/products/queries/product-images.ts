import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { fileContentUrl } from '../../../shared/http/public-url';
import { GetFilesByIdsQuery } from '../../files';
import type { ProductView } from '../dto/product.view';

/**
 * A product's image is one of its organization's uploaded image files, in the same mode. A write
 * is refused when `image_id` names anything else; a read shows the file under `image` while it
 * exists (a deleted file leaves `image_id` and an `image` of null).
 */
@Injectable()
export class ProductImages {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  /**
   * Why `imageId` cannot be this scope's product image, or null when it can; read in the writer's
   * transaction `m`, which then holds the file until it commits (a delete waits).
   */
  async problem(m: EntityManager, scope: Scope, imageId: string): Promise<string | null> {
    const file = (await this.queries.execute(new GetFilesByIdsQuery(scope, [imageId], m)))[imageId];
    if (!file) return `names no file of this organization in ${scope.mode} mode: upload the image with POST /files/upload and pass the id it returns`;
    if (file.type !== 'image') return `must name an image file; ${imageId} holds ${file.mime_type} (type ${file.type})`;
    return null;
  }

  /**
   * Sets `image` on every view whose image file still exists: one read for all of them (inside the
   * caller's transaction when it passes `m`, never on a second connection while it holds one).
   */
  async fill(scope: Scope, views: readonly ProductView[], m?: EntityManager): Promise<void> {
    const ids = views.flatMap((v) => (v.image_id ? [v.image_id] : []));
    if (!ids.length) return;
    const files = await this.queries.execute(new GetFilesByIdsQuery(scope, ids, m));
    for (const view of views) {
      const file = view.image_id ? files[view.image_id] : undefined;
      view.image = file && file.type === 'image' ? { id: file.id, name: file.name, mime_type: file.mime_type, url: fileContentUrl(file.id) } : null;
    }
  }
}
