package io.kaas.broker.txn;

import java.time.Duration;

/**
 * The coordinator's settings, with Apache's defaults.
 *
 * @param maxTimeout         {@code transaction.max.timeout.ms}: a producer asking for more gets INVALID_TRANSACTION_TIMEOUT
 * @param abortSweepInterval {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}: how often open
 *                           transactions past their timeout are aborted
 * @param version            the finalized feature {@code transaction.version}: 1 (KIP-98's protocol with KIP-890
 *                           part 1's produce verification) or 2 (KIP-890 part 2: an epoch bump per transaction,
 *                           partitions added by Produce itself, EndTxn v5). Clients choose the protocol from it.
 * @param idExpiration       {@code transactional.id.expiration.ms}: a transactional id with no transaction open
 *                           and no update for this long is forgotten (its state removed from its slot file)
 */
public record TransactionConfig(
        Duration maxTimeout, Duration abortSweepInterval, short version, Duration idExpiration) {
    public static final short DEFAULT_VERSION = 2;
    /** Apache's {@code transactional.id.expiration.ms} default: 7 days. */
    public static final Duration DEFAULT_ID_EXPIRATION = Duration.ofDays(7);

    public static final TransactionConfig DEFAULTS =
            new TransactionConfig(Duration.ofMinutes(15), Duration.ofSeconds(10));

    public TransactionConfig {
        if (maxTimeout.isNegative()
                || maxTimeout.isZero()
                || abortSweepInterval.isNegative()
                || abortSweepInterval.isZero()
                || idExpiration.isNegative()
                || idExpiration.isZero()) {
            throw new IllegalArgumentException("transaction timeouts must be positive");
        }
        if (version != 1 && version != 2) {
            throw new IllegalArgumentException("transaction.version must be 1 or 2, not " + version);
        }
    }

    public TransactionConfig(Duration maxTimeout, Duration abortSweepInterval) {
        this(maxTimeout, abortSweepInterval, DEFAULT_VERSION, DEFAULT_ID_EXPIRATION);
    }

    public TransactionConfig withVersion(int v) {
        return new TransactionConfig(maxTimeout, abortSweepInterval, (short) v, idExpiration);
    }

    public TransactionConfig withMaxTimeout(Duration d) {
        return new TransactionConfig(d, abortSweepInterval, version, idExpiration);
    }

    public TransactionConfig withIdExpiration(Duration d) {
        return new TransactionConfig(maxTimeout, abortSweepInterval, version, d);
    }

    /** Whether clients are told to use transaction protocol v2 (KIP-890 part 2). */
    public boolean epochBumpPerTransaction() {
        return version >= 2;
    }
}
