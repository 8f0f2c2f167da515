// The organizations module's public surface: other modules and the composition root import only this file.
export { OrganizationsModule } from './organizations.module';
export { CreateOrganizationCommand, type CreatedOrganization } from './commands/create-organization/create-organization.command';
export { CreateApiKeyCommand, type IssuedKey } from './commands/create-api-key/create-api-key.command';
export { RevokeApiKeyCommand, type RevokedKeys } from './commands/revoke-api-key/revoke-api-key.command';
export { RollApiKeyCommand, type RolledKey } from './commands/roll-api-key/roll-api-key.command';
export { MAX_ROLL_GRACE_SECONDS } from './domain/api-key';
export { ListApiKeysQuery, type ApiKeyView } from './queries/list-api-keys/list-api-keys.query';
export { CountOrganizationsQuery } from './queries/count-organizations/count-organizations.query';
export { ListOrganizationsQuery, type OrganizationListEntry } from './queries/list-organizations/list-organizations.query';
export { ResolveApiKeyQuery } from './queries/resolve-api-key/resolve-api-key.query';
export { GetOrganizationProfileQuery, type OrganizationProfile } from './queries/get-organization-profile/get-organization-profile.query';
