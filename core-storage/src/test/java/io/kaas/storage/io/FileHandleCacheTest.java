package io.kaas.storage.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileHandleCacheTest {
    @TempDir
    Path dir;

    private List<CachedFile> files(FileHandleCache cache, int n) throws IOException {
        List<CachedFile> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path p = dir.resolve("f" + i);
            Files.write(p, new byte[] {(byte) i});
            out.add(cache.file(p, StandardOpenOption.READ));
        }
        return out;
    }

    private static byte readFirst(CachedFile f) throws IOException {
        try (CachedFile.Handle h = f.acquire()) {
            ByteBuffer b = ByteBuffer.allocate(1);
            h.channel().read(b, 0);
            return b.get(0);
        }
    }

    @Test
    void openChannelsStayAtTheCeilingAndEvictedFilesReopenOnUse() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        List<CachedFile> files = files(cache, 100);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < files.size(); i++) {
                assertThat(readFirst(files.get(i))).isEqualTo((byte) i);
                assertThat(cache.openChannels()).isLessThanOrEqualTo(16);
            }
        }
        assertThat(cache.evictions()).isGreaterThan(200);
        assertThat(cache.opens()).isEqualTo(cache.evictions() + cache.openChannels());
    }

    @Test
    void theLeastRecentlyUsedGoFirst() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        List<CachedFile> files = files(cache, 17);
        for (int i = 0; i < 16; i++) {
            readFirst(files.get(i));
        }
        readFirst(files.get(0)); // 0 is the most recent now, 1 the oldest
        readFirst(files.get(16));
        assertThat(files.get(0).isOpen()).isTrue();
        assertThat(files.get(1).isOpen()).isFalse();
        assertThat(files.get(16).isOpen()).isTrue();
    }

    @Test
    void aHeldChannelIsNeverEvictedAndStaysUsable() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        List<CachedFile> files = files(cache, 64);
        try (CachedFile.Handle held = files.get(0).acquire()) {
            for (CachedFile f : files.subList(1, 64)) {
                readFirst(f);
            }
            assertThat(held.channel().isOpen()).isTrue();
            ByteBuffer b = ByteBuffer.allocate(1);
            held.channel().read(b, 0);
            assertThat(b.get(0)).isZero();
        }
    }

    @Test
    void aFileThatRefusesToCloseIsKeptAndAskedAgainLater() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        AtomicBoolean dirty = new AtomicBoolean(true);
        Path p = dir.resolve("dirty");
        Files.write(p, new byte[] {7});
        CachedFile unsynced = cache.file(
                p,
                new CachedFile.Owner() {
                    @Override
                    public boolean isClean() {
                        return !dirty.get();
                    }

                    @Override
                    public void syncBeforeClose(java.nio.channels.FileChannel channel) throws IOException {
                        throw new IOException("not now");
                    }
                },
                StandardOpenOption.READ);
        readFirst(unsynced);
        List<CachedFile> others = files(cache, 40);
        others.forEach(f -> {
            try {
                readFirst(f);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        assertThat(unsynced.isOpen()).as("unsynced bytes keep the channel").isTrue();
        dirty.set(false);
        for (int round = 0; round < 2; round++) {
            for (CachedFile f : others) {
                readFirst(f);
            }
        }
        assertThat(unsynced.isOpen()).isFalse();
    }

    @Test
    void anUnsyncedChannelIsSyncedThroughItselfBeforeEvictionClosesItButOnlyWhenCleanOnesCannotMakeRoom()
            throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        List<java.nio.channels.FileChannel> syncedThrough = new ArrayList<>();
        AtomicBoolean dirty = new AtomicBoolean(true);
        Path p = dir.resolve("unsynced");
        Files.write(p, new byte[] {9});
        CachedFile unsynced = cache.file(
                p,
                new CachedFile.Owner() {
                    @Override
                    public boolean isClean() {
                        return !dirty.get();
                    }

                    @Override
                    public void syncBeforeClose(java.nio.channels.FileChannel channel) {
                        syncedThrough.add(channel);
                        dirty.set(false);
                    }
                },
                StandardOpenOption.READ);
        java.nio.channels.FileChannel wrote;
        try (CachedFile.Handle h = unsynced.acquire()) {
            wrote = h.channel();
        }
        List<CachedFile> clean = files(cache, 15);
        for (CachedFile f : clean) {
            readFirst(f);
        }
        assertThat(unsynced.isOpen()).as("15 clean ones made room").isTrue();
        // Now every other channel is held: only the unsynced one can go.
        List<CachedFile.Handle> held = new ArrayList<>();
        for (CachedFile f : clean) {
            held.add(f.acquire());
        }
        for (CachedFile f : files(cache, 2)) {
            held.add(f.acquire());
        }
        assertThat(unsynced.isOpen()).isFalse();
        assertThat(syncedThrough).containsExactly(wrote);
        held.forEach(CachedFile.Handle::close);
    }

    @Test
    void sendsMayHoldHalfTheCeiling() {
        FileHandleCache cache = new FileHandleCache(16);
        for (int i = 0; i < 8; i++) {
            assertThat(cache.tryStartSend()).isTrue();
        }
        assertThat(cache.tryStartSend()).isFalse();
        cache.endSend();
        assertThat(cache.tryStartSend()).isTrue();
        assertThat(cache.sendsInFlight()).isEqualTo(8);
    }

    @Test
    void evictionRunsTheHookSoColdIndexesCanBeDropped() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        AtomicInteger evicted = new AtomicInteger();
        Path p = dir.resolve("cold");
        Files.write(p, new byte[] {1});
        CachedFile cold = cache.file(
                p,
                new CachedFile.Owner() {
                    @Override
                    public void evicted() {
                        evicted.incrementAndGet();
                    }
                },
                StandardOpenOption.READ);
        readFirst(cold);
        for (CachedFile f : files(cache, 20)) {
            readFirst(f);
        }
        assertThat(evicted).hasValue(1);
    }

    @Test
    void aRetiredFileClosesWhenItsLastHolderLetsGoAndRefusesNewUse() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        CachedFile f = files(cache, 1).get(0);
        CachedFile.Handle sending = f.acquire();
        f.retire();
        assertThat(sending.channel().isOpen())
                .as("a send in flight keeps its channel")
                .isTrue();
        assertThatThrownBy(f::acquire).isInstanceOf(ClosedChannelException.class);
        assertThat(cache.openChannels()).isEqualTo(1);
        sending.close();
        assertThat(sending.channel().isOpen()).isFalse();
        assertThat(cache.openChannels()).isZero();
        f.retire(); // idempotent
        assertThat(cache.openChannels()).isZero();
    }

    @Test
    void aRetiredIdleFileClosesAtOnce() throws IOException {
        FileHandleCache cache = new FileHandleCache(16);
        CachedFile f = files(cache, 1).get(0);
        readFirst(f);
        assertThat(cache.openChannels()).isEqualTo(1);
        f.retire();
        assertThat(f.isOpen()).isFalse();
        assertThat(cache.openChannels()).isZero();
    }

    @Test
    void theDefaultCeilingIsHalfTheProcessLimit() {
        assertThat(FileHandleCache.defaultCeiling()).isBetween(16, 1 << 20);
        assertThatThrownBy(() -> new FileHandleCache(3)).isInstanceOf(IllegalArgumentException.class);
    }
}
