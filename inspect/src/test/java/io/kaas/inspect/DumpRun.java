package io.kaas.inspect;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

/** Runs a {@link SegmentDumper} and keeps what it printed. */
record DumpRun(int exit, String out, String err) {
    static DumpRun of(DumpOptions options, Path... files) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new SegmentDumper(options, new PrintWriter(out), new PrintWriter(err)).dump(List.of(files));
        return new DumpRun(exit, out.toString(), err.toString());
    }

    List<String> lines() {
        return out.lines().toList();
    }

    List<String> batchLines() {
        return out.lines().filter(l -> l.startsWith("baseOffset:")).toList();
    }
}
