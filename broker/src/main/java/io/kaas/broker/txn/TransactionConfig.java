package io.kaas.broker.txn;

import java.time.Duration;

/**
 * The coordinator's settings, with Apache's defaults.
 *
 * @param maxTimeout         {@code transaction.max.timeout.ms}: a producer asking for more gets INVALID_TRANSACTION_TIMEOUT
 * @param abortSweepInterval {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}: how often open
 *                           transactions past their timeout are aborted
 */
public record TransactionConfig(Duration maxTimeout, Duration abortSweepInterval) {
    public static final TransactionConfig DEFAULTS = new TransactionConfig(Duration.ofMinutes(15), Duration.ofSeconds(10));

    public TransactionConfig {
        if (maxTimeout.isNegative() || maxTimeout.isZero() || abortSweepInterval.isNegative() || abortSweepInterval.isZero()) {
            throw new IllegalArgumentException("transaction timeouts must be positive");
        }
    }
}
