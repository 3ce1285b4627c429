package io.kaas.cli.damage;

/** One broken invariant in one case, by one tool ({@code batchesLost}: CRC-valid batches it removed, for INTACT_BATCH_LOST). */
record Violation(
        DamageCase damageCase, Damager.Applied applied, Tool tool, Problem problem, String detail, int batchesLost) {

    enum Problem {
        /** (a) a CRC-valid batch is gone after a run without --force */
        INTACT_BATCH_LOST,
        /** (a) the tool refused or failed, yet changed files */
        CHANGED_FILES_ON_REFUSAL,
        /** (b) the tool's verdict differs from recover --dry-run's */
        DISAGREES,
        /** (b) recover (or a forced one) exited 0 and verify then did not */
        VERIFY_FAILS_AFTER_RECOVER,
        /** (c) a derivable file's damage was not rebuilt (recover not 0, or the engine did not open) */
        DERIVABLE_NOT_REBUILT,
        /** (d) bytes left the log under --force without being in the quarantine, byte for byte */
        NOT_QUARANTINED,
        /** a run without --force exited 0 with a high watermark below what the manifest (durable) said */
        DURABLE_DATA_CUT,
        /** the engine opened the partition but reading it from its log start to its high watermark failed */
        UNREADABLE_AFTER_OPEN,
        /** the log start moved back (deleted records returned) */
        LOG_START_MOVED_BACK,
        /** a tool exited with neither 0 nor 1 (usage, I/O, internal error) */
        TOOL_ERROR
    }

    /** One line: enough to find and replay the case. */
    String line() {
        return String.format(
                "seed=%d %s %s %s %s | %s | %s: %s | %s",
                damageCase.seed(),
                damageCase.scenario(),
                damageCase.target(),
                damageCase.field(),
                damageCase.kind(),
                applied,
                tool.label,
                problem,
                detail);
    }
}
