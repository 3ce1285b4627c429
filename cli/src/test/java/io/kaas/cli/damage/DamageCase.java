package io.kaas.cli.damage;

import java.util.List;
import java.util.Random;

/**
 * One case of the campaign, wholly decided by its seed (so a case is replayed from the seed alone):
 * the scenario, the file damaged, the field class within it and the kind of damage. Where exactly (which
 * segment, batch, bit or range) is drawn by {@link Damager} from the same seed.
 */
record DamageCase(long seed, Scenario scenario, Target target, Field field, Kind kind) {

    /** The file a case damages. */
    enum Target {
        LOG(null),
        INDEX(null),
        MANIFEST("manifest.json"),
        RECOVERY_CHECKPOINT("recovery-checkpoint.json"),
        PRODUCER_STATE("producer-state.snapshot"),
        TXN_INDEX("txn-index.snapshot"),
        LEADER_EPOCH("leader-epoch-checkpoint.json"),
        TOPIC_CONFIG("../.config.json");

        /** Path relative to the partition dir, for the state files. */
        final String fileName;

        Target(String fileName) {
            this.fileName = fileName;
        }

        /** Rebuilt from the log when unreadable or wrong: never fatal. */
        boolean derivable() {
            return this == INDEX
                    || this == RECOVERY_CHECKPOINT
                    || this == PRODUCER_STATE
                    || this == TXN_INDEX
                    || this == LEADER_EPOCH;
        }
    }

    /** Which bytes of the file: a batch header field, CRC-covered bytes, an index entry, or the whole file. */
    enum Field {
        BATCH_LENGTH(8, 12),
        BASE_OFFSET(0, 8),
        LEADER_EPOCH(12, 16),
        ATTRIBUTES(21, 23),
        CRC_COVERED(17, -1),
        INDEX_ENTRY(0, 8),
        WHOLE_FILE(0, -1);

        /** Range within the batch header (CRC_COVERED: from the CRC to the batch's end). */
        final int from;

        final int to;

        Field(int from, int to) {
            this.from = from;
            this.to = to;
        }
    }

    enum Kind {
        FLIP,
        ZERO,
        TRUNCATE,
        DUPLICATE,
        DELETE,
        OVERLAP_COPY,
        NONE
    }

    static final List<Field> LOG_FIELDS =
            List.of(Field.BATCH_LENGTH, Field.BASE_OFFSET, Field.LEADER_EPOCH, Field.ATTRIBUTES, Field.CRC_COVERED);
    static final List<Kind> FILE_KINDS = List.of(Kind.FLIP, Kind.ZERO, Kind.TRUNCATE, Kind.DUPLICATE, Kind.DELETE);

    /** The case of {@code seed}: half the cases damage a log (where batches are lost), the rest spread over the other files. */
    static DamageCase of(long seed) {
        Random r = new Random(seed);
        Scenario scenario = Scenario.values()[r.nextInt(Scenario.values().length)];
        if (r.nextInt(50) == 0) {
            return new DamageCase(seed, scenario, Target.LOG, Field.WHOLE_FILE, Kind.NONE);
        }
        Target target = r.nextBoolean() ? Target.LOG : Target.values()[1 + r.nextInt(Target.values().length - 1)];
        if (target == Target.TXN_INDEX && scenario != Scenario.TRANSACTIONAL) {
            target = Target.PRODUCER_STATE; // only a transactional log has a transaction index
        }
        Kind kind;
        Field field;
        if (target == Target.LOG) {
            kind = r.nextInt(7) == 0 ? Kind.OVERLAP_COPY : FILE_KINDS.get(r.nextInt(FILE_KINDS.size()));
            field = kind == Kind.DELETE || kind == Kind.OVERLAP_COPY
                    ? Field.WHOLE_FILE
                    : LOG_FIELDS.get(r.nextInt(LOG_FIELDS.size()));
        } else {
            kind = FILE_KINDS.get(r.nextInt(FILE_KINDS.size()));
            field = target == Target.INDEX && kind != Kind.DELETE ? Field.INDEX_ENTRY : Field.WHOLE_FILE;
        }
        return new DamageCase(seed, scenario, target, field, kind);
    }

    /** Where the damage is drawn from: the same seed, past the draws that chose the case. */
    Random placement() {
        return new Random(seed * 0x9E3779B97F4A7C15L + 1);
    }

    @Override
    public String toString() {
        return "seed=" + seed + " " + scenario + " " + target + " " + field + " " + kind;
    }
}
