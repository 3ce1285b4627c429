/**
 * The one recovery scan ({@link io.kaas.storage.recovery.RecoveryScan}): what a partition's files say
 * after a crash, a torn tail cut, damage refused with its file and byte unless told to repair it,
 * derivable state rebuilt from the log. Partition open runs it; {@code kaas recover} and
 * {@code kaas verify} drive it. Analysis first, then changes, so a dry run or a refusal changes nothing.
 */
package io.kaas.storage.recovery;
