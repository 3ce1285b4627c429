package io.kaas.migration;

/**
 * How {@link ApacheImport} runs.
 *
 * @param dryRun                 read and check everything, write nothing
 * @param copy                   copy every segment (never hard-link), e.g. to move the data to another disk
 * @param abortOpenTransactions  end a transaction Apache left ongoing with an ABORT marker; without it such an
 *                               import is refused. One the coordinator was committing (PREPARE_COMMIT) is always
 *                               completed with COMMIT markers, as Apache's coordinator would on restart.
 */
public record ImportOptions(boolean dryRun, boolean copy, boolean abortOpenTransactions) {}
