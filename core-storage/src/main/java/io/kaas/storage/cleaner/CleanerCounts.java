package io.kaas.storage.cleaner;

/** Running counts of one cleaning pass (one thread; read once the pass ends). */
final class CleanerCounts {
    long recordsRead;
    long supersededRemoved;
    long keysRemoved;
    long abortedRemoved;
    long markersRemoved;
    long unkeyedRemoved;
    long bytesRead;
    long bytesWritten;
}
