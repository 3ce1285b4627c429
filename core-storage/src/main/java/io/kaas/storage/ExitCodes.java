package io.kaas.storage;

/**
 * The exit codes every kaas command returns, listed once. They live beside the engine because the
 * offline tools built on it (recovery, inspect) compute them and the cli only passes them on; what each
 * means to a user is worded once, in the cli's {@code ExitCodeList}. Scripts branch on these numbers:
 * never renumber one.
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** The command ran and found problems (corruption, mismatches, damage it refused to fix). */
    public static final int PROBLEMS = 1;
    /** Unknown option, missing or malformed argument. */
    public static final int USAGE = 2;
    /** Data could not be read or written (missing file, permission, disk full, partition locked). */
    public static final int UNREADABLE = 3;
    /** An unexpected exception: a bug in kaas. (70 is sysexits' EX_SOFTWARE.) */
    public static final int INTERNAL_ERROR = 70;

    private ExitCodes() {}

    /** The worse of two outcomes of a run over many files: unreadable beats problems beats ok. */
    public static int worst(int a, int b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(int code) {
        return switch (code) {
            case UNREADABLE -> 3;
            case USAGE -> 2;
            case PROBLEMS -> 1;
            default -> 0;
        };
    }
}
