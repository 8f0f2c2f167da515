import { Command } from '@nestjs/cqrs';

/**
 * Seals every stored webhook signing secret (current and previous, deleted endpoints included)
 * that is plain text or sealed with an older key, with the current SECRETS_KEY. Run at start after
 * the migrations (a migration cannot know the key); returns how many endpoints it sealed.
 */
export class SealStoredSecretsCommand extends Command<number> {}
