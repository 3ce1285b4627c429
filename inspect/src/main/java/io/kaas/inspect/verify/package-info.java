/**
 * kaas verify: the damage verdict of recover --dry-run, then every batch's CRC, every index entry, the state
 * files and the offsets between segments, against a consistent prefix when a broker is writing. Never writes.
 */
package io.kaas.inspect.verify;
