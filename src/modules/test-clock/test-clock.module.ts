import { Module } from '@nestjs/common';
import { AdvanceTestClockHandler } from './commands/advance-test-clock/advance-test-clock.handler';
import { TestClocksRepository } from './persistence/test-clocks.repository';
import { TestClockController } from './test-clock.controller';

/**
 * Tests only: GET/POST /test_helpers/clock, answering 403 clock_control_disabled unless CLOCK_CONTROL
 * installed a movable clock. It owns `test_clocks` and is its only writer (AdvanceTestClockCommand); the kernel's clock reads it.
 */
@Module({ controllers: [TestClockController], providers: [TestClocksRepository, AdvanceTestClockHandler] })
export class TestClockModule {}
