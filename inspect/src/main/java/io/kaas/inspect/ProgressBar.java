package io.kaas.inspect;

import java.io.PrintWriter;
import java.util.function.LongConsumer;

/**
 * A one-line progress bar on stderr for long scans: "[#####.....] 52% 1.2 GiB / 2.3 GiB". Fed the total
 * as a negative number first, then byte counts as work is done. Only used when stderr is a terminal;
 * {@link #NONE} otherwise, so piped output never holds carriage returns.
 */
public final class ProgressBar implements LongConsumer {
    public static final LongConsumer NONE = b -> {};
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private long total;
    private long done;
    private int lastPercent = -1;

    public ProgressBar(PrintWriter err) {
        this.err = err;
    }

    @Override
    public void accept(long bytes) {
        if (bytes < 0) {
            total = -bytes;
            return;
        }
        done += bytes;
        int percent = total == 0 ? 100 : (int) Math.min(100, done * 100 / total);
        if (percent != lastPercent) {
            lastPercent = percent;
            int filled = percent * WIDTH / 100;
            err.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + percent + "% " + mib(done)
                    + " / " + mib(total) + " MiB");
            err.flush();
        }
    }

    /** Clears the bar's line. */
    public void finish() {
        if (lastPercent >= 0) {
            err.print("\r" + " ".repeat(WIDTH + 40) + "\r");
            err.flush();
        }
    }

    private static String mib(long bytes) {
        return String.format("%.1f", bytes / 1048576.0);
    }
}
