package io.kaas.recovery;

/** The exit codes every kaas command uses (DESIGN.md): listed once so commands and tests agree. */
public final class ExitCodes {
    public static final int OK = 0;
    /** The command ran and found problems (corruption, mismatches, damage it refused to fix). */
    public static final int PROBLEMS = 1;
    public static final int USAGE = 2;
    /** Data could not be read or written. */
    public static final int UNREADABLE = 3;

    private ExitCodes() {}

    /** The worse of two outcomes: unreadable beats problems beats ok. */
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
