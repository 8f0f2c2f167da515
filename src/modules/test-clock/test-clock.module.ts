import { Module } from '@nestjs/common';
import { TestClockController } from './test-clock.controller';

/** Tests only: GET/POST /test_helpers/clock, answering 404 unless CLOCK_CONTROL=true installed a movable clock. */
@Module({ controllers: [TestClockController] })
export class TestClockModule {}
