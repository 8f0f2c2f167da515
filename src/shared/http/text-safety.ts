import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { assertStorableText } from './json-safety';

/** Path parameters, query values and bodies with a NUL character are a 400 at their field, not a database error. */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' || metadata.type === 'query' || metadata.type === 'body') assertStorableText(value, metadata.data ?? '');
    return value;
  }
}
