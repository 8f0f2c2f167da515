import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { download, PDF, PNG, upload } from '../files/files-helpers';
import { createInvoice, readInvoice } from '../invoices/invoice-helpers';
import { productBody } from './product-bodies';

async function uploadFile(api: Api, content: Buffer, name: string): Promise<string> {
  return expectSuccess(await upload(api, content, { filename: name })).id;
}

/** The content URL as an absolute address (it is the path alone when PUBLIC_BASE_URL is unset). */
const absolute = (api: Api, url: string) => (url.startsWith('/') ? `${api.base}${url}` : url);

describe('Products: image_id names one of the caller’s image files', () => {
  it('refuses another organization’s file, the other mode’s, a missing one and a non-image, naming image_id; nothing is written', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const theirs = await uploadFile(other.test, PNG, 'theirs.png');
    const live = await uploadFile(org.live, PNG, 'live.png');
    const pdf = await uploadFile(org.test, PDF, 'terms.pdf');

    const cases: Array<[string, RegExp]> = [
      [theirs, /names no file of this organization in test mode/],
      [live, /names no file of this organization in test mode/],
      ['file_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b', /upload the image with POST \/files\/upload/],
      [pdf, /must name an image file; .* holds application\/pdf \(type document\)/],
    ];
    for (const [imageId, message] of cases) {
      const error = expectError(await org.test.post('/products', productBody({ image_id: imageId })), 400, { field: 'image_id' });
      expect(JSON.stringify(error)).toMatch(message);
    }
    expect(expectSuccess(await org.test.get('/products'))).toEqual([]);

    // A replace is held to the same rule and leaves the version it was refused for active.
    const id = expectSuccess(await org.test.post('/products', productBody())).id;
    expectError(await org.test.put(`/products/${id}`, productBody({ image_id: theirs })), 400, { field: 'image_id' });
    expect(expectSuccess(await org.test.get(`/products/${id}`))).toMatchObject({ is_active: 1, image_id: null, image: null });
  });

  it('shows the image in reads, lists and invoice expansions, never to a payer, and null once the file is deleted', async () => {
    const org = await createOrg();
    const imageId = await uploadFile(org.test, PNG, 'widget.png');
    const id = expectSuccess(await org.test.post('/products', productBody({ image_id: imageId }))).id;

    const product = expectSuccess(await org.test.get(`/products/${id}`));
    expect(product.image_id).toBe(imageId);
    expect(product.image).toEqual({
      id: imageId,
      name: 'widget.png',
      mime_type: 'image/png',
      url: expect.stringMatching(new RegExp(`/files/${imageId}/content$`)),
    });
    const bytes = await download(absolute(org.test, product.image.url), org.testKey);
    expect(bytes.status).toBe(200);
    expect(bytes.bytes.equals(PNG)).toBe(true);

    const listed = expectSuccess(await org.test.get('/products')).find((p: any) => p.id === id);
    expect(listed.image).toEqual(product.image);

    const schemaId = product.schemas[0].id;
    const invoiceId = await createInvoice(org.test, { items: [{ type: 'PRODUCT', product_id: id, billing_schema_id: schemaId, quantity: 1 }] });
    const merchantView = await readInvoice(org.test, invoiceId, { expand: ['items.product'] });
    expect(merchantView.items[0].product.image).toEqual(product.image);
    const payerView = await readInvoice(anonymous(), invoiceId, { expand: ['items.product'] });
    expect(payerView.items[0].product).toMatchObject({ id, image: null });
    expect(payerView.items[0].product).not.toHaveProperty('image_id');

    expectSuccess(await org.test.delete(`/files/${imageId}`));
    expect(expectSuccess(await org.test.get(`/products/${id}`))).toMatchObject({ image_id: imageId, image: null });
  });
});
