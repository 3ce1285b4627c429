package io.kaas.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a broker process holds, read from outside so that kaas and Apache are measured the same way: resident
 * memory and open descriptors from /proc, heap in use from {@code jcmd GC.heap_info}, live heap from the total of
 * {@code jcmd GC.class_histogram} (which runs a full collection first: taken last), and, when the broker runs with
 * {@code -XX:NativeMemoryTracking=summary}, NMT's "Other" committed bytes, where direct buffers (Netty's pools,
 * the JDK's temporary direct buffers) are counted.
 */
final class BrokerFootprint {
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total.*?used (\\d+)K");
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)");
    private static final Pattern NMT_OTHER = Pattern.compile("-\\s+Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)");
    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB");

    private BrokerFootprint() {}

    /** Figures in MiB (fds: a count); a figure that could not be read is absent. */
    static Map<String, String> of(long pid) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    out.put("broker_rss_mib", mib(Long.parseLong(line.replaceAll("\\D", "")) * 1024));
                }
            }
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                out.put("broker_fds", Long.toString(fds.count()));
            }
        } catch (IOException | RuntimeException e) {
            out.put("broker_proc_error", e.toString().replace(' ', '_'));
        }
        find(jcmd(pid, "GC.heap_info"), HEAP_USED).ifPresent(k -> out.put("broker_heap_used_mib", mib(k * 1024)));
        String nmt = jcmd(pid, "VM.native_memory", "summary");
        find(nmt, NMT_OTHER).ifPresent(k -> out.put("broker_nmt_other_mib", mib(k * 1024)));
        find(nmt, NMT_TOTAL).ifPresent(k -> out.put("broker_nmt_committed_mib", mib(k * 1024)));
        find(jcmd(pid, "GC.class_histogram"), HISTOGRAM_TOTAL).ifPresent(b -> out.put("broker_heap_live_mib", mib(b)));
        return out;
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    private static java.util.Optional<Long> find(String text, Pattern p) {
        Matcher m = p.matcher(text);
        return m.find() ? java.util.Optional.of(Long.parseLong(m.group(1))) : java.util.Optional.empty();
    }

    private static String jcmd(long pid, String... command) {
        String[] argv = new String[command.length + 2];
        argv[0] = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        argv[1] = Long.toString(pid);
        System.arraycopy(command, 0, argv, 2, command.length);
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            byte[] text = p.getInputStream().readAllBytes();
            p.waitFor(60, TimeUnit.SECONDS);
            return new String(text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
