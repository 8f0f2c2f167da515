import { Query } from '@nestjs/cqrs';

export class CountOrganizationsQuery extends Query<number> {}
