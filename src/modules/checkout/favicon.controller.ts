import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../shared/auth/auth.decorators';
import { CheckoutAssets } from './checkout-assets';

/** Browsers ask every host for /favicon.ico: the checkout page's icon answers it (SVG, cached for a day), never a 404. */
@Controller()
export class FaviconController {
  constructor(@Inject(CheckoutAssets) private readonly assets: CheckoutAssets) {}

  @Get('favicon.ico')
  @Public()
  // Not an API operation: left out of the API reference.
  @ApiExcludeEndpoint()
  favicon(@Res() res: Response): void {
    const icon = this.assets.files.get('favicon.svg')!;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.status(200).type(icon.contentType).send(icon.body);
  }
}
