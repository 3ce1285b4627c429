package io.kaas.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.segment.SegmentName;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A base offset is outside the CRC: the cleaner, which checked only CRCs, would carry a damaged one
 * into the cleaned segment. It refuses instead, naming file and byte, and changes nothing.
 */
class CleanerRefusesDamageTest {
    @Test
    void aDamagedBaseOffsetInAClosedSegmentStopsThePassNamingFileAndByte() throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            Path dir = Files.createDirectories(fs.getPath("/data/t/0"));
            CleanerScenario s = CleanerScenario.generate(7, 40, 5);
            List<SegmentName> names = s.write(dir);
            assertThat(names.size()).isGreaterThan(1);
            Path log = dir.resolve(names.get(0).logFileName());
            long second;
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer head = ByteBuffer.allocate(12);
                ch.read(head, 0);
                second = head.getInt(8) + 12L;
                assertThat(second).isLessThan(ch.size());
                ch.write(ByteBuffer.allocate(8).putLong(0, names.get(0).baseOffset() - 1), second);
            }
            Map<String, byte[]> before = CleanerProperties.contents(dir);
            assertThatThrownBy(() -> CleanerProperties.cleaner(CleanerProperties.NOW, 4)
                            .clean(CleanerProperties.input(dir, names, s, -1), false, n -> {}))
                    .isInstanceOfSatisfying(StorageException.class, e -> {
                        assertThat(e.kind()).isEqualTo(StorageException.Kind.DAMAGED);
                        assertThat(e.getMessage())
                                .startsWith(log + ":" + second + ": ")
                                .contains("base offset");
                    });
            assertThat(CleanerProperties.contents(dir))
                    .usingRecursiveComparison()
                    .isEqualTo(before);
        }
    }
}
