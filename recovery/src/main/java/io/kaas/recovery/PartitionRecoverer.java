package io.kaas.recovery;

import io.kaas.storage.recovery.RecoveryOptions;
import io.kaas.storage.recovery.RecoveryReport;
import io.kaas.storage.recovery.RecoveryScan;
import java.nio.file.Path;

/** Recovers one partition directory. The real one is the broker's own scan, {@link RecoveryScan#run}. */
@FunctionalInterface
public interface PartitionRecoverer {
    PartitionRecoverer BROKER_SCAN = RecoveryScan::run;

    RecoveryReport recover(Path partitionDir, RecoveryOptions options);
}
