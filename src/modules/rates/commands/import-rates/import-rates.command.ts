import { Command } from '@nestjs/cqrs';
import type { SnapshotInput } from '../../domain/rate-table';

export interface ImportedRates {
  id: string;
  taken_at: string;
  source: string;
  currencies: number;
  carried_over: string[];
}

/** Records a new rates snapshot; currencies it leaves out keep their previous rate. */
export class ImportRatesCommand extends Command<ImportedRates> {
  constructor(readonly snapshot: SnapshotInput) {
    super();
  }
}
