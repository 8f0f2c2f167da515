import { Command } from '@nestjs/cqrs';

export interface ForgottenWalletKeys {
  /** Wallets removed because their key was sealed with the lost key (the merchant registers the key again). */
  wallets_removed: number;
  /** Wallets deleted before whose key was sealed with it (their key is replaced by a marker). */
  deleted_wallets_reset: number;
  /**
   * Removed wallets stored before key fingerprints (never started since with a version that has them):
   * their address counter cannot be found without the key, so their merchants register another account
   * of the wallet instead of the same key (the same key would hand out its first addresses again).
   */
  wallets_without_fingerprint: string[];
}

/**
 * Gives up the receiving wallets' keys sealed with a SECRETS_KEY that is lost for good (`keyId`, 8 hex
 * characters): the operator's last resort, so the service starts again (`cli secrets:forget-key`).
 */
export class ForgetLostKeyWalletKeysCommand extends Command<ForgottenWalletKeys> {
  constructor(readonly keyId: string) {
    super();
  }
}
