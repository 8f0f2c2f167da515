import { Controller, Get, Header, Param, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../shared/auth/auth.decorators';
import { NotFoundError } from '../../shared/errors/domain-error';
import { ApiErrors } from '../../shared/http/api-docs';
import { PROVIDER_IMAGES, providerImage } from './assets/provider-images';

/** The provider images named in `metadata.image_url` / `image_url_network`, served by the service itself. */
@ApiTags('Providers')
@Controller('assets/providers')
export class ProviderAssetsController {
  @Get(':file')
  @Public()
  @Header('Cache-Control', 'public, max-age=86400')
  @Header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
  @Header('X-Content-Type-Options', 'nosniff')
  @ApiOperation({ summary: 'A provider image (SVG)', description: 'Public and cacheable for a day. Unknown names are 404.' })
  @ApiParam({ name: 'file', enum: Object.keys(PROVIDER_IMAGES), example: 'usdt.svg' })
  @ApiProduces('image/svg+xml')
  @ApiResponse({
    status: 200,
    description: 'The SVG image',
    content: { 'image/svg+xml': { schema: { type: 'string' }, example: PROVIDER_IMAGES['usdc.svg'] } },
  })
  @ApiErrors(404)
  image(@Param('file') file: string): StreamableFile {
    const svg = providerImage(file);
    if (svg === null) throw new NotFoundError('image');
    return new StreamableFile(Buffer.from(svg, 'utf8'), { type: 'image/svg+xml; charset=utf-8' });
  }
}
