package io.kaas.storage.recovery;

import java.nio.file.Path;

/**
 * Bytes a recovery scan cuts or removes outside the damage verdict (a fenced ex-leader's late writes, a torn
 * tail): bytes {@code [start, end)} of {@code file}, or the whole file. Under --force they are quarantined
 * too, as every byte that leaves the log.
 */
record ScanCut(Path file, long start, long end, String why, boolean wholeFile) {}
