package io.kaas.storage.durability;

import io.kaas.storage.Acks;
import io.kaas.storage.AppendResult;
import io.kaas.storage.PartitionLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Appender threads that keep producing (acks=all, some idempotent) until the power goes: the cut then
 * lands in the middle of appends, fsyncs, rolls and checkpoint refreshes. Each thread records what
 * was acknowledged before it failed. Owned by one property try: {@link #join} ends every thread.
 */
final class Burst {
    /** One appender's target: a partition and its model. */
    record Target(PartitionLog log, PartitionModel model) {}

    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch acks;
    private final AtomicReference<Throwable> unexpected = new AtomicReference<>();
    private volatile boolean stop;

    /**
     * @param targets   picks the partition for an appender's next batch (by a random int)
     * @param producerIds a fresh producer id for each idempotent appender
     */
    Burst(
            int appenders,
            int acksBeforeCut,
            long seed,
            int maxValueBytes,
            IntFunction<Target> targets,
            java.util.function.LongSupplier producerIds) {
        this.acks = new CountDownLatch(acksBeforeCut);
        for (int i = 0; i < appenders; i++) {
            Random random = new Random(seed + i);
            // An idempotent appender stays on one partition (sequences are per partition).
            boolean idempotent = i % 2 == 0;
            Target fixed = targets.apply(random.nextInt(1 << 20));
            long pid = idempotent ? producerIds.getAsLong() : -1;
            Thread t = new Thread(
                    () -> run(random, idempotent, fixed, pid, targets, maxValueBytes), "durability-burst-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /** Waits until the wanted number of appends were acknowledged (or the appenders all stopped). */
    boolean awaitAcks() throws InterruptedException {
        return acks.await(20, TimeUnit.SECONDS);
    }

    /** Stops and joins every appender; rethrows an append failure that happened before the power cut. */
    void join(boolean powerWasCut) throws Exception {
        stop = true;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(20));
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not stop: an append future never completed");
            }
        }
        if (!powerWasCut && unexpected.get() != null) {
            throw new AssertionError("append failed with the power on", unexpected.get());
        }
    }

    private void run(
            Random random, boolean idempotent, Target fixed, long pid, IntFunction<Target> targets, int maxValueBytes) {
        int seq = 0;
        while (!stop) {
            Target target = idempotent ? fixed : targets.apply(random.nextInt(1 << 20));
            int records = 1 + random.nextInt(3);
            ByteBuffer batch = RandomBatches.build(
                    random,
                    records,
                    random.nextInt(maxValueBytes / records + 1),
                    pid,
                    idempotent ? (short) 0 : -1,
                    idempotent ? seq : -1);
            ByteBuffer sent = RandomBatches.copy(batch);
            Acks mode = random.nextInt(4) == 0 ? Acks.LEADER : Acks.ALL;
            if (idempotent) {
                target.model().sending(pid, seq);
            }
            try {
                AppendResult r = target.log().append(batch, mode, -1).get(20, TimeUnit.SECONDS);
                target.model().appended(new PartitionModel.Placed(r.baseOffset(), r.lastOffset(), sent, mode, pid));
                seq += records;
                acks.countDown();
            } catch (Exception | Error e) {
                // After the cut every call fails; before it, a failure is a bug the try reports.
                unexpected.compareAndSet(null, e);
                while (acks.getCount() > 0) {
                    acks.countDown();
                }
                return;
            }
        }
    }
}
