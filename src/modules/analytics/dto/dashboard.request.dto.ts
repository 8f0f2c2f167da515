import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { PERIODS } from '../domain/period';

export class DashboardRequestDto {
  @ApiProperty({
    enum: PERIODS,
    example: 'last_30_days',
    description:
      'last_day: the current UTC hour and the 23 before it (hourly series). last_N_days: the current UTC day and the N-1 before it ' +
      '(daily series). prev_X: the window of the same length just before X.',
  })
  @IsIn(PERIODS, { message: `$property must be one of ${PERIODS.join(', ')}` })
  period: string;
}
