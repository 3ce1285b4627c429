package io.kaas.inspect.verify;

import io.kaas.storage.io.StorageException;
import io.kaas.storage.recovery.PartitionAnalysis;
import io.kaas.storage.recovery.RecoveryReport;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The damage verdict of one partition, taken from the analysis {@code kaas recover --dry-run} runs
 * ({@link PartitionAnalysis}), so that verify and recover cannot disagree on whether a partition is
 * damaged, nor on which batch is: recover's lines name the damaged batch itself ({@code FILE:BYTE: what}).
 * Verify's own walk then only adds what the analysis does not judge (further bad CRCs, index entries,
 * state files); its offset checks of a file the analysis found damaged are left out, because they would
 * name the damaged batch's neighbours.
 */
final class AnalysisFindings {
    private static final Pattern LINE = Pattern.compile("(.+?):(\\d+): (.*)", Pattern.DOTALL);

    private final Set<Path> damagedFiles = new HashSet<>();
    private final Set<String> named = new HashSet<>();

    private AnalysisFindings() {}

    /** Runs the analysis on {@code partitionDir} and reports each damage line it refuses for; unreadable goes to the report too. */
    static AnalysisFindings of(Path partitionDir, VerifyReport report) {
        return of(partitionDir, report, null);
    }

    /**
     * As above, reporting only the damage found in files {@code only} accepts (one segment verified on its own;
     * then a partition the analysis cannot read is left to that segment's own walk, which names what it cannot read).
     */
    static AnalysisFindings of(Path partitionDir, VerifyReport report, java.util.function.Predicate<Path> only) {
        AnalysisFindings f = new AnalysisFindings();
        RecoveryReport r;
        try {
            r = PartitionAnalysis.analyse(partitionDir).outcome().report();
        } catch (StorageException e) {
            if (only == null) {
                report.unreadable(e.getMessage());
            }
            return f;
        }
        if (r.refused()) {
            List<Problem> problems =
                    r.damage().stream().map(line -> parse(line, partitionDir)).toList();
            boolean someNameAByte = problems.stream().anyMatch(p -> p.position() >= 0);
            for (Problem p : problems) {
                if (someNameAByte && p.position() < 0 && p.file().equals(partitionDir)) {
                    continue; // recover's advice on what --force would do: not a finding of its own
                }
                if (only != null && !only.test(p.file())) {
                    continue;
                }
                report.problem(p);
                if (p.position() >= 0) {
                    f.damagedFiles.add(p.file());
                    f.named.add(p.file() + ":" + p.position());
                }
            }
        }
        return f;
    }

    /** An analysis that found nothing (a lone segment file verified outside its partition). */
    static AnalysisFindings none() {
        return new AnalysisFindings();
    }

    /** {@code FILE:BYTE: what} as a problem; a line naming no byte is about the whole partition. */
    static Problem parse(String line, Path partitionDir) {
        Matcher m = LINE.matcher(line);
        if (m.matches()) {
            return new Problem(Path.of(m.group(1)), Long.parseLong(m.group(2)), m.group(3));
        }
        String prefix = partitionDir + ": ";
        return new Problem(partitionDir, -1, line.startsWith(prefix) ? line.substring(prefix.length()) : line);
    }

    /** The analysis found damage in this log: its offsets are judged there, not by verify's walk. */
    boolean offsetsJudged(Path log) {
        return damagedFiles.contains(log) || damagedFiles.contains(log.toAbsolutePath());
    }

    /** The analysis already named this byte of this file. */
    boolean named(Path file, long position) {
        return named.contains(file + ":" + position) || named.contains(file.toAbsolutePath() + ":" + position);
    }

    List<Path> damagedFiles() {
        return List.copyOf(damagedFiles);
    }
}
