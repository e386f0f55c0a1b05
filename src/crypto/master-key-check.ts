import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Sql } from '../db/database.ts';
import { readKeyCheck, recordKeyCheck, sealedSamples } from '../db/master-key-check-repository.ts';
import { deriveKey } from './keys.ts';
import { SecretBox } from './secret-box.ts';

/** This process's master key cannot open what the database holds: the process must not run. */
export class MasterKeyMismatchError extends Error {}

/** HMAC of a fixed label under a key derived for this purpose only: says nothing of the key itself. */
function keyCheckValue(masterKey: Buffer): Buffer {
  return createHmac('sha256', deriveKey(masterKey, 'key-check')).update('chipin master key check').digest();
}

function mismatch(source: string, why: string): MasterKeyMismatchError {
  return new MasterKeyMismatchError(
    `the master key from ${source} is not the key this database was set up with (${why}); ` +
      'start every process and CLI command of this deployment with the same key (docs/security.md, "The master key")',
  );
}

/**
 * Compares the master key with the check value the database holds, recording it when there is
 * none: on an empty database, or on one upgraded from before the check value when the key opens
 * the sealed secrets it already holds. Throws {@link MasterKeyMismatchError} otherwise.
 * `source` names where the key came from, never the key.
 */
export async function verifyMasterKey(sql: Sql, masterKey: Buffer, source: string): Promise<void> {
  const mine = keyCheckValue(masterKey);
  let stored = await readKeyCheck(sql);
  if (!stored) {
    const box = new SecretBox(masterKey);
    for (const sealed of await sealedSamples(sql)) {
      try {
        box.open(sealed);
      } catch {
        throw mismatch(source, 'it cannot open the secrets already stored');
      }
    }
    // Two processes starting at once on an empty database: the first insert wins, both compare with it.
    await recordKeyCheck(sql, mine);
    stored = (await readKeyCheck(sql))!;
  }
  if (stored.length !== mine.length || !timingSafeEqual(stored, mine)) throw mismatch(source, 'its check value differs from the one stored at first start');
}

/** {@link verifyMasterKey} with the configuration's key and where it came from. */
export function verifyConfiguredKey(sql: Sql, config: Pick<Config, 'masterKey' | 'masterKeySource'>): Promise<void> {
  return verifyMasterKey(sql, config.masterKey, config.masterKeySource ?? 'the configured master key');
}
