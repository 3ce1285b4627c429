package io.kaas.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link FsyncWatchdog}: stalls are declared once, late by at most a period, and watching wakes no thread per fsync. */
class FsyncWatchdogTest {
    private static final Duration TIMEOUT = Duration.ofMillis(200);
    private final FsyncWatchdog dog = new FsyncWatchdog(TIMEOUT, r -> new Thread(r, "test-fsync-watchdog"));

    @AfterEach
    void close() {
        dog.close();
    }

    @Test
    void anFsyncInFlightPastTheTimeoutIsDeclaredStalledOnceAndNotBefore() throws Exception {
        AtomicInteger fired = new AtomicInteger();
        CountDownLatch firedOnce = new CountDownLatch(1);
        long start = System.nanoTime();
        FsyncWatchdog.Watch w = dog.start(() -> {
            fired.incrementAndGet();
            firedOnce.countDown();
        });
        assertThat(firedOnce.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
        // The hung fsync returns after all: the caller learns it had been declared stalled.
        assertThat(w.end()).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> !dog.armed());
        assertThat(fired).hasValue(1);
        assertThat(dog.inFlight()).isZero();
    }

    @Test
    void anFsyncThatReturnsInTimeIsNeverDeclaredStalled() {
        AtomicInteger fired = new AtomicInteger();
        FsyncWatchdog.Watch w = dog.start(fired::incrementAndGet);
        assertThat(w.end()).isTrue();
        // The checks go on for a period after the last start, then stop; the ended watch never fires.
        await().atMost(Duration.ofSeconds(10)).until(() -> !dog.armed() && dog.checks() >= 1);
        assertThat(fired).hasValue(0);
    }

    @Test
    void manyFsyncsInARowAreWatchedByAFewChecksNotOneEach() {
        AtomicInteger fired = new AtomicInteger();
        for (int i = 0; i < 10_000; i++) {
            dog.start(fired::incrementAndGet).end();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !dog.armed());
        // 10,000 fsyncs, done well within a couple of periods: a check per period, not a timer task (and a
        // wake-up of the timer thread) per fsync.
        assertThat(dog.checks()).isBetween(1L, 50L);
        assertThat(fired).hasValue(0);
    }

    @Test
    void aStartAfterRestArmsTheCheckAgain() throws Exception {
        dog.start(() -> {}).end();
        await().atMost(Duration.ofSeconds(10)).until(() -> !dog.armed());
        CountDownLatch fired = new CountDownLatch(1);
        dog.start(fired::countDown);
        assertThat(fired.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aClosedWatchdogRefusesNewWatches() {
        dog.close();
        assertThatThrownBy(() -> dog.start(() -> {})).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void thePeriodIsAQuarterOfTheTimeoutBetweenAMillisecondAndASecond() {
        assertThat(FsyncWatchdog.period(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(1));
        assertThat(FsyncWatchdog.period(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(75));
        assertThat(FsyncWatchdog.period(Duration.ofNanos(100))).isEqualTo(Duration.ofMillis(1));
    }
}
