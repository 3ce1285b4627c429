package io.kaas.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Lookups agree with a TreeMap, before and after a reload from the file, and truncation drops exactly the tail. */
class SparseIndexProperties {
    @Property(tries = 200)
    void lookupMatchesTreeMap(
            @ForAll @Size(max = 200) List<@IntRange(min = 1, max = 50) Integer> gaps,
            @ForAll @IntRange(min = 0, max = 12_000) int target,
            @ForAll @IntRange(min = 0, max = 100_000) int cut)
            throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path file = fs.getPath("/x.index");
            long base = 1000;
            TreeMap<Long, Integer> model = new TreeMap<>();
            try (SparseIndex idx = SparseIndex.create(file, base)) {
                long off = base;
                int pos = 0;
                for (int g : gaps) {
                    off += g;
                    pos += g * 10;
                    idx.append(off, pos);
                    model.put(off, pos);
                }
                check(idx, model, base, base + target);
            }
            try (SparseIndex idx = SparseIndex.open(file, base)) {
                assertThat(idx.entryCount()).isEqualTo(model.size());
                check(idx, model, base, base + target);
                idx.truncateToPosition(cut);
                model.values().removeIf(p -> p >= cut);
                check(idx, model, base, base + target);
            }
            try (SparseIndex idx = SparseIndex.open(file, base)) {
                assertThat(idx.entryCount()).isEqualTo(model.size());
            }
        }
    }

    private static void check(SparseIndex idx, TreeMap<Long, Integer> model, long base, long target) {
        Map.Entry<Long, Integer> e = model.floorEntry(target);
        IndexEntry expected = e == null ? new IndexEntry(base, 0) : new IndexEntry(e.getKey(), e.getValue());
        assertThat(idx.lookup(target)).isEqualTo(expected);
    }
}
