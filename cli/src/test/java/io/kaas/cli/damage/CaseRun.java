package io.kaas.cli.damage;

import io.kaas.cli.KaasRun;
import io.kaas.cli.damage.Violation.Problem;
import io.kaas.storage.format.Manifest;
import io.kaas.storage.format.StateJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One case: damage a copy of a scenario's data dir, run every {@link Tool} on a copy of that, and check
 * the invariants of the damage contract against what each left behind.
 */
final class CaseRun {
    /** A built, undamaged scenario: its data dir, its log start, the files it holds. */
    record Base(Path data, long logStart, Map<String, byte[]> files) {}

    private final DamageCase c;
    private final Base base;
    private final Path work;
    private final List<Violation> violations = new ArrayList<>();
    private Damager.Applied applied;

    private final Map<Tool, Long> nanosByTool;

    private CaseRun(DamageCase c, Base base, Path work, Map<Tool, Long> nanosByTool) {
        this.c = c;
        this.base = base;
        this.work = work;
        this.nanosByTool = nanosByTool;
    }

    /** The violations of case {@code c}; empty if none; null if the scenario has no file to damage as asked. */
    static List<Violation> run(DamageCase c, Base base, Path work, Map<Tool, Long> nanosByTool) throws IOException {
        return new CaseRun(c, base, work, nanosByTool).run();
    }

    private List<Violation> run() throws IOException {
        Path damaged = work.resolve("damaged");
        Trees.copy(base.data(), damaged);
        Optional<Damager.Applied> a = Damager.apply(partition(damaged), c);
        if (a.isEmpty()) {
            Trees.delete(damaged);
            return null;
        }
        applied = a.get();
        Map<String, byte[]> before = Trees.snapshot(partition(damaged));
        List<IntactBatches.Batch> intact = IntactBatches.of(before);

        Map<Tool, Tool.Result> results = new EnumMap<>(Tool.class);
        Map<Tool, Integer> verifyAfter = new EnumMap<>(Tool.class);
        for (Tool tool : Tool.values()) {
            // the tools that never write run on the damaged dir itself (and are held to that), the rest on a copy
            boolean readOnly = tool == Tool.RECOVER_DRY_RUN || tool == Tool.VERIFY;
            Path copy = readOnly ? damaged : work.resolve(tool.name());
            if (!readOnly) {
                Trees.copy(damaged, copy);
            }
            long t0 = System.nanoTime();
            Tool.Result r = tool.run(copy, base.logStart() + 1);
            nanosByTool.merge(tool, System.nanoTime() - t0, Long::sum);
            results.put(tool, r);
            Map<String, byte[]> after = Trees.snapshot(partition(copy));
            // not after recover --fast: like the broker's open it trusts closed segments, whose damage verify finds
            if ((tool == Tool.RECOVER || tool.forced) && r.exit() == 0) {
                KaasRun v = KaasRun.of("verify", copy.toString());
                verifyAfter.put(tool, v.exitCode());
                if (v.exitCode() != 0) {
                    add(
                            tool,
                            Problem.VERIFY_FAILS_AFTER_RECOVER,
                            "verify exit " + v.exitCode() + ": "
                                    + Tool.brief(v.out() + v.err()).replace(copy + "/", ""));
                }
            }
            checkRun(tool, r, before, after, intact);
            if (!readOnly) {
                Trees.delete(copy);
            } else if (!same(before, after)) {
                Trees.delete(damaged); // changed by a tool that must not write: start the others from the damage again
                Trees.copy(base.data(), damaged);
                Damager.apply(partition(damaged), c);
            }
        }
        Trees.delete(damaged);
        checkAgreement(results);
        checkDerivable(results);
        return violations;
    }

    /** (a), (d) and the log start, for one tool's run. */
    private void checkRun(
            Tool tool,
            Tool.Result r,
            Map<String, byte[]> before,
            Map<String, byte[]> after,
            List<IntactBatches.Batch> intact) {
        if (r.exit() != 0 && r.exit() != Tool.REFUSED) {
            add(tool, Problem.TOOL_ERROR, "exit " + r.exit() + ": " + r.output());
        }
        boolean writes = tool != Tool.RECOVER_DRY_RUN && tool != Tool.VERIFY; // these two must never change a byte
        if ((r.exit() != 0 || !writes) && !same(before, after)) {
            add(
                    tool,
                    Problem.CHANGED_FILES_ON_REFUSAL,
                    "exit " + r.exit() + " but changed " + changed(before, after) + ": " + r.output());
            return;
        }
        if (tool.forced) {
            if (r.exit() == 0) {
                QuarantineCheck.check(before, after).forEach(p -> add(tool, Problem.NOT_QUARANTINED, p));
            }
            return;
        }
        Set<ByteBuffer> kept = IntactBatches.contents(after);
        List<IntactBatches.Batch> lost = intact.stream()
                .filter(b -> !b.mayBeCut() && !kept.contains(b.bytes()))
                .toList();
        if (!lost.isEmpty()) {
            add(
                    tool,
                    Problem.INTACT_BATCH_LOST,
                    lost.size() + " CRC-valid batch(es) gone, first " + lost.get(0) + " (exit " + r.exit() + ": "
                            + r.output() + ")",
                    lost.size());
        }
        if (r.readFailure() != null) {
            add(tool, Problem.UNREADABLE_AFTER_OPEN, r.readFailure());
        }
        if (tool == Tool.ENGINE_OPEN && r.exit() == 0 && r.logStart() < base.logStart()) {
            add(
                    tool,
                    Problem.LOG_START_MOVED_BACK,
                    "opened with log start " + r.logStart() + ", was " + base.logStart());
        }
        if ((tool == Tool.RECOVER || tool == Tool.RECOVER_FAST) && r.exit() == 0) {
            manifest(after).ifPresent(m -> {
                if (m.logStartOffset() < base.logStart()) {
                    add(
                            tool,
                            Problem.LOG_START_MOVED_BACK,
                            "manifest log start " + m.logStartOffset() + " after, was " + base.logStart());
                }
            });
        }
        // what the manifest said before is durable (written after an fsync): no tool without --force goes below it
        Optional<Manifest> was = manifest(before);
        long end = tool == Tool.ENGINE_OPEN
                ? r.highWatermark()
                : manifest(after).map(Manifest::highWatermark).orElse(-1L);
        if (was.isPresent()
                && r.exit() == 0
                && writes
                && end >= 0
                && end < was.get().highWatermark()) {
            add(
                    tool,
                    Problem.DURABLE_DATA_CUT,
                    "high watermark " + was.get().highWatermark() + " -> " + end + " (" + r.output() + ")");
        }
    }

    /** The manifest in {@code files}, if it reads. */
    private static Optional<Manifest> manifest(Map<String, byte[]> files) {
        byte[] bytes = files.get(Manifest.FILE_NAME);
        try {
            return bytes == null ? Optional.empty() : Optional.ofNullable(StateJson.fromBytes(bytes, Manifest.class));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * (b): every tool refuses exactly when recover --dry-run does (compact only where it would clean). verify
     * reports what recover would repair (a stale index, a torn tail): when the dry run would change something
     * without refusing, verify may exit 0 or 1; when it refuses verify must exit 1, when it finds the partition
     * clean verify must exit 0.
     */
    private void checkAgreement(Map<Tool, Tool.Result> results) {
        Tool.Result dry = results.get(Tool.RECOVER_DRY_RUN);
        boolean refused = dry.exit() == Tool.REFUSED;
        boolean clean = dry.exit() == 0 && dry.output().contains(": clean");
        for (Tool tool : List.of(Tool.RECOVER, Tool.VERIFY, Tool.COMPACT, Tool.DELETE_RECORDS, Tool.REBUILD_INDEX)) {
            if (tool == Tool.COMPACT && c.scenario() != Scenario.COMPACTED) {
                continue; // a topic that is not compacted is skipped, damaged or not
            }
            Tool.Result r = results.get(tool);
            if (tool == Tool.VERIFY && !refused && !clean && r.exit() == Tool.REFUSED) {
                continue;
            }
            if ((r.exit() == Tool.REFUSED) != refused) {
                add(
                        tool,
                        Problem.DISAGREES,
                        "recover --dry-run exit "
                                + results.get(Tool.RECOVER_DRY_RUN).exit() + " ("
                                + results.get(Tool.RECOVER_DRY_RUN).output() + "), " + tool.label + " exit " + r.exit()
                                + " (" + r.output() + ")");
            }
        }
        checkOpenAgreement(results, refused);
    }

    /**
     * The engine's open is held to {@code recover --fast}, not to the full recover: like the broker's open
     * it reads only the active segment's tail past the recovery checkpoint and trusts closed segments whose
     * index is sane (fsynced whole when they rolled), so that thousands of partitions open fast. Damage
     * inside a trusted closed segment is found by verify and the full recover, and by a read that meets
     * it. So: the open refuses exactly when recover --fast does, and whatever either refuses the full
     * recover refuses too. (That the open never removes an intact batch nor cuts below the durable high
     * watermark is checked per run.)
     */
    private void checkOpenAgreement(Map<Tool, Tool.Result> results, boolean fullRefused) {
        Tool.Result fast = results.get(Tool.RECOVER_FAST);
        Tool.Result open = results.get(Tool.ENGINE_OPEN);
        boolean fastRefused = fast.exit() == Tool.REFUSED;
        boolean openRefused = open.exit() == Tool.REFUSED;
        if (openRefused != fastRefused) {
            add(
                    Tool.ENGINE_OPEN,
                    Problem.DISAGREES,
                    "recover --fast exit " + fast.exit() + " (" + fast.output() + "), engine open exit " + open.exit()
                            + " (" + open.output() + ")");
        }
        for (Tool tool : List.of(Tool.RECOVER_FAST, Tool.ENGINE_OPEN)) {
            Tool.Result r = results.get(tool);
            if (r.exit() == Tool.REFUSED && !fullRefused) {
                add(
                        tool,
                        Problem.DISAGREES,
                        tool.label + " refused (" + r.output() + ") but recover --dry-run exit "
                                + results.get(Tool.RECOVER_DRY_RUN).exit() + " ("
                                + results.get(Tool.RECOVER_DRY_RUN).output() + ")");
            }
        }
    }

    /** (c): a damaged derivable file is rebuilt: recover exits 0 and the engine opens. */
    private void checkDerivable(Map<Tool, Tool.Result> results) {
        if (!c.target().derivable() || c.kind() == DamageCase.Kind.NONE) {
            return;
        }
        for (Tool tool : List.of(Tool.RECOVER, Tool.RECOVER_FAST, Tool.ENGINE_OPEN)) {
            Tool.Result r = results.get(tool);
            if (r.exit() != 0) {
                add(tool, Problem.DERIVABLE_NOT_REBUILT, "exit " + r.exit() + ": " + r.output());
            }
        }
    }

    private void add(Tool tool, Problem p, String detail) {
        add(tool, p, detail, 0);
    }

    private void add(Tool tool, Problem p, String detail, int batchesLost) {
        violations.add(new Violation(c, applied, tool, p, detail, batchesLost));
    }

    private static Path partition(Path data) {
        return data.resolve(Scenario.TOPIC).resolve("0");
    }

    private static boolean same(Map<String, byte[]> a, Map<String, byte[]> b) {
        return a.keySet().equals(b.keySet())
                && a.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), b.get(e.getKey())));
    }

    private static String changed(Map<String, byte[]> a, Map<String, byte[]> b) {
        Map<String, String> out = new TreeMap<>();
        Stream.concat(a.keySet().stream(), b.keySet().stream()).distinct().forEach(k -> {
            if (!b.containsKey(k)) {
                out.put(k, "removed");
            } else if (!a.containsKey(k)) {
                out.put(k, "added");
            } else if (!Arrays.equals(a.get(k), b.get(k))) {
                out.put(k, a.get(k).length + "->" + b.get(k).length + " bytes");
            }
        });
        return out.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ", "[", "]"));
    }
}
