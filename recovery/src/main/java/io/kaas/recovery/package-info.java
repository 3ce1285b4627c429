/**
 * The offline commands that write: recover, compact, delete-records, rebuild-index. Each runs core-storage's
 * own rules (the recovery scan, the cleaner, the log-start rule, the index policy), refuses a damaged partition
 * unless forced, and reports per partition as text or JSON Lines.
 */
package io.kaas.recovery;
