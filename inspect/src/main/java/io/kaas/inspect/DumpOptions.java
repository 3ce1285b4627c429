package io.kaas.inspect;

/**
 * What {@code dump-segment} prints.
 *
 * @param deepIteration   decode every record (compressed batches too)
 * @param printDataLog    print keys and values (implies deep iteration)
 * @param hex             keys and values in hex instead of UTF-8
 * @param fromOffset      first offset of interest (batches ending before it are skipped; the index seeks)
 * @param toOffset        last offset of interest (the dump stops after the batch holding it)
 * @param maxBytes        read at most this many log bytes from the starting position
 * @param verifyIndexOnly index files: only check entries against the log, print mismatches
 * @param indexSanityOnly index files: only run the sanity check the broker runs on open
 * @param json            one JSON object per line instead of text
 */
public record DumpOptions(
        boolean deepIteration,
        boolean printDataLog,
        boolean hex,
        long fromOffset,
        long toOffset,
        long maxBytes,
        boolean verifyIndexOnly,
        boolean indexSanityOnly,
        boolean json) {
    public static final DumpOptions DEFAULTS =
            new DumpOptions(false, false, false, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, false, false, false);

    public boolean decodeRecords() {
        return deepIteration || printDataLog;
    }

    /** True when the dump reads a window of the log rather than all of it (no torn-tail verdict then). */
    public boolean windowed() {
        return fromOffset != Long.MIN_VALUE || toOffset != Long.MAX_VALUE || maxBytes != Long.MAX_VALUE;
    }

    public DumpOptions withJson(boolean value) {
        return new DumpOptions(
                deepIteration,
                printDataLog,
                hex,
                fromOffset,
                toOffset,
                maxBytes,
                verifyIndexOnly,
                indexSanityOnly,
                value);
    }
}
