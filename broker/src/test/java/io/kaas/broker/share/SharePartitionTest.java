package io.kaas.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The share-partition state machine without a broker: acquire, the four acknowledgements, locks, limits, restore. */
class SharePartitionTest {
    private static final SharePartition.Limits LIMITS = new SharePartition.Limits(1_000, 3, 100);

    private static List<SharePartition.Batch> batch(long first, long last) {
        return List.of(new SharePartition.Batch(first, last, true));
    }

    @Test
    void acceptedRecordsMoveTheStartOffsetAndAreNotAcquiredAgain() {
        SharePartition p = new SharePartition(0);
        assertThat(p.acquire("a", batch(0, 4), 10, 5, 0, LIMITS)).containsExactly(new SharePartition.Acquired(0, 4, 1));
        assertThat(p.acquire("b", batch(0, 4), 10, 5, 0, LIMITS)).isEmpty();
        assertThat(p.acknowledge("a", 0, 2, List.of(AcknowledgeType.ACCEPT), 0, LIMITS))
                .isEqualTo(Errors.NONE);
        assertThat(p.startOffset()).isEqualTo(3);
        assertThat(p.endOffset()).isEqualTo(5);
    }

    @Test
    void anotherMembersRecordsCannotBeAcknowledged() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 1), 10, 2, 0, LIMITS);
        assertThat(p.acknowledge("b", 0, 1, List.of(AcknowledgeType.ACCEPT), 0, LIMITS))
                .isEqualTo(Errors.INVALID_RECORD_STATE);
        assertThat(p.state(0)).isEqualTo(RecordState.ACQUIRED);
    }

    @Test
    void releaseRedeliversWithACountUntilTheLimitArchives() {
        SharePartition p = new SharePartition(0);
        for (int delivery = 1; delivery <= 3; delivery++) {
            assertThat(p.acquire("a", batch(0, 0), 10, 1, 0, LIMITS))
                    .containsExactly(new SharePartition.Acquired(0, 0, delivery));
            p.acknowledge("a", 0, 0, List.of(AcknowledgeType.RELEASE), 0, LIMITS);
        }
        assertThat(p.state(0)).isEqualTo(RecordState.ACKNOWLEDGED); // archived, below the start offset now
        assertThat(p.startOffset()).isEqualTo(1);
        assertThat(p.acquire("a", batch(0, 0), 10, 1, 0, LIMITS)).isEmpty();
    }

    @Test
    void rejectArchivesAndPerOffsetTypesApplyEachToItsOffset() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 2), 10, 3, 0, LIMITS);
        assertThat(p.acknowledge(
                        "a",
                        0,
                        2,
                        List.of(AcknowledgeType.REJECT, AcknowledgeType.RELEASE, AcknowledgeType.ACCEPT),
                        0,
                        LIMITS))
                .isEqualTo(Errors.NONE);
        assertThat(p.startOffset()).isEqualTo(1);
        assertThat(p.state(1)).isEqualTo(RecordState.AVAILABLE);
        assertThat(p.state(2)).isEqualTo(RecordState.ACKNOWLEDGED);
        assertThat(p.nextFetchOffset()).isEqualTo(1);
    }

    @Test
    void anExpiredLockReleasesAndRenewExtendsIt() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 1), 10, 2, 0, LIMITS);
        p.acknowledge("a", 1, 1, List.of(AcknowledgeType.RENEW), 900, LIMITS);
        assertThat(p.expireLocks(1_000, LIMITS)).isTrue();
        assertThat(p.state(0)).isEqualTo(RecordState.AVAILABLE);
        assertThat(p.state(1)).isEqualTo(RecordState.ACQUIRED);
        assertThat(p.acquire("b", batch(0, 1), 10, 2, 1_000, LIMITS))
                .containsExactly(new SharePartition.Acquired(0, 0, 2));
    }

    @Test
    void aLeavingMembersRecordsGoBackAndUndeliverableBatchesAreArchived() {
        SharePartition p = new SharePartition(0);
        List<SharePartition.Batch> log = List.of(
                new SharePartition.Batch(0, 1, true),
                new SharePartition.Batch(2, 2, false), // an abort marker, say
                new SharePartition.Batch(3, 3, true));
        assertThat(p.acquire("a", log, 10, 4, 0, LIMITS))
                .containsExactly(new SharePartition.Acquired(0, 1, 1), new SharePartition.Acquired(3, 3, 1));
        assertThat(p.releaseMember("a", LIMITS)).isTrue();
        assertThat(p.acquire("b", log, 10, 4, 0, LIMITS))
                .containsExactly(new SharePartition.Acquired(0, 1, 2), new SharePartition.Acquired(3, 3, 2));
    }

    @Test
    void maxRecordsAndTheInFlightLimitBoundAnAcquisition() {
        SharePartition p = new SharePartition(0);
        assertThat(p.acquire("a", batch(0, 9), 4, 10, 0, LIMITS)).containsExactly(new SharePartition.Acquired(0, 3, 1));
        SharePartition small = new SharePartition(0);
        assertThat(small.acquire("a", batch(0, 9), 10, 10, 0, new SharePartition.Limits(1_000, 3, 2)))
                .containsExactly(new SharePartition.Acquired(0, 1, 1));
    }

    @Test
    void aRestoredPartitionKeepsAcceptedDoneAndAcquiredAvailableWithTheirCount() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 2), 10, 3, 0, LIMITS);
        p.acknowledge("a", 1, 1, List.of(AcknowledgeType.ACCEPT), 0, LIMITS);
        SharePartition back = SharePartition.restore(p.snapshot());
        assertThat(back.startOffset()).isEqualTo(0);
        assertThat(back.state(0)).isEqualTo(RecordState.AVAILABLE);
        assertThat(back.state(1)).isEqualTo(RecordState.ACKNOWLEDGED);
        assertThat(back.acquire("b", batch(0, 2), 10, 3, 0, LIMITS))
                .containsExactly(new SharePartition.Acquired(0, 0, 2), new SharePartition.Acquired(2, 2, 2));
    }

    @Test
    void aFetchIsOneRunUntilAnAcknowledgementCutsIt() {
        SharePartition p = new SharePartition(0);
        SharePartition.Limits wide = new SharePartition.Limits(1_000, 3, 2_000);
        assertThat(p.acquire("a", batch(0, 499), 500, 500, 0, wide))
                .containsExactly(new SharePartition.Acquired(0, 499, 1));
        assertThat(p.runCount()).isEqualTo(1);
        assertThat(p.acknowledge("a", 100, 199, List.of(AcknowledgeType.RELEASE), 0, wide))
                .isEqualTo(Errors.NONE);
        assertThat(p.runCount()).isEqualTo(3);
        assertThat(p.snapshot().runs())
                .containsExactly(
                        new SharePartition.StoredRun(0, 99, RecordState.ACQUIRED, 1),
                        new SharePartition.StoredRun(100, 199, RecordState.AVAILABLE, 1),
                        new SharePartition.StoredRun(200, 499, RecordState.ACQUIRED, 1));
        assertThat(p.acquire("b", batch(0, 499), 500, 500, 0, wide))
                .containsExactly(new SharePartition.Acquired(100, 199, 2));
        assertThat(p.acknowledge("a", 0, 99, List.of(AcknowledgeType.ACCEPT), 0, wide))
                .isEqualTo(Errors.NONE);
        assertThat(p.acknowledge("a", 200, 499, List.of(AcknowledgeType.ACCEPT), 0, wide))
                .isEqualTo(Errors.NONE);
        assertThat(p.startOffset()).isEqualTo(100);
        assertThat(p.acknowledge("b", 100, 199, List.of(AcknowledgeType.ACCEPT), 0, wide))
                .isEqualTo(Errors.NONE);
        assertThat(p.startOffset()).isEqualTo(500);
        assertThat(p.runCount()).isZero();
    }

    @Test
    void anAcknowledgementAcrossTwoMembersRunsChangesNothing() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 4), 5, 10, 0, LIMITS);
        p.acquire("b", batch(5, 9), 5, 10, 0, LIMITS);
        assertThat(p.acknowledge("a", 3, 6, List.of(AcknowledgeType.ACCEPT), 0, LIMITS))
                .isEqualTo(Errors.INVALID_RECORD_STATE);
        assertThat(p.state(3)).isEqualTo(RecordState.ACQUIRED);
        assertThat(p.runCount()).isEqualTo(2);
    }

    @Test
    void theLogStartMovingIntoARunCutsIt() {
        SharePartition p = new SharePartition(0);
        p.acquire("a", batch(0, 9), 10, 10, 0, LIMITS);
        p.logStartMovedTo(4);
        assertThat(p.startOffset()).isEqualTo(4);
        assertThat(p.acknowledge("a", 3, 3, List.of(AcknowledgeType.ACCEPT), 0, LIMITS))
                .isEqualTo(Errors.INVALID_RECORD_STATE);
        assertThat(p.acknowledge("a", 4, 9, List.of(AcknowledgeType.ACCEPT), 0, LIMITS))
                .isEqualTo(Errors.NONE);
        assertThat(p.startOffset()).isEqualTo(10);
    }
}
