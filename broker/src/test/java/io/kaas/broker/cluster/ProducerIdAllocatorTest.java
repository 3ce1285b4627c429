package io.kaas.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerIdAllocatorTest {
    @TempDir
    Path dir;

    @Test
    void idsAreUniqueAcrossRestartsEvenWithoutACleanStop() {
        Set<Long> seen = new HashSet<>();
        long last = -1;
        for (int run = 0; run < 3; run++) {
            // Each "run" is a new broker process over the same directory; nothing is closed in between.
            ProducerIdAllocator ids = new ProducerIdAllocator(dir);
            for (int i = 0; i < 1500; i++) {
                long id = ids.allocate();
                assertThat(seen.add(id)).as("id %d handed out twice", id).isTrue();
                assertThat(id).isGreaterThan(last);
                last = id;
            }
        }
        assertThat(dir.resolve("producer_ids").resolve(ProducerIdAllocator.FILE_NAME))
                .exists();
    }
}
