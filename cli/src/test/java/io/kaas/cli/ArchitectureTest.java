package io.kaas.cli;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The module arrows, cli -> {broker, inspect, recovery, migration} -> core-storage, broker -> {protocol, cluster} -> core-storage,
 * {cluster-etcd, cluster-kubernetes} -> cluster (found by URI scheme, named by no other module), no package
 * cycle inside a module, and what the engine must not know: Maven's dependency list only stops an arrow that has no dependency behind it, this stops the
 * rest (a stray import through a transitive dependency, a dependency re-added "for one class"). Lives
 * in the cli's tests because only its classpath holds every module's classes.
 */
class ArchitectureTest {
    private static final String STORAGE = "io.kaas.storage..";
    private static final String RECOVERY = "io.kaas.recovery..";
    private static final String INSPECT = "io.kaas.inspect..";
    private static final String MIGRATION = "io.kaas.migration..";
    private static final String BROKER = "io.kaas.broker..";
    private static final String PROTOCOL = "io.kaas.protocol..";
    private static final String CLUSTER = "io.kaas.cluster";
    private static final String ETCD = "io.kaas.cluster.etcd..";
    private static final String KUBERNETES = "io.kaas.cluster.kubernetes..";
    /** The coordination backends' libraries: only their own modules may name them. */
    private static final String[] BACKEND_LIBRARIES = {"io.etcd..", "io.grpc..", "io.vertx..", "io.fabric8.."};

    private static final String CLI = "io.kaas.cli..";

    private static JavaClasses main;

    /** Main code only: test classes (including test-jars, such as core-storage's fixtures) may reach anywhere. */
    private static final ImportOption NO_TEST_JARS = (Location location) -> !location.contains("-tests.jar");

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(NO_TEST_JARS)
                .importPackages("io.kaas");
    }

    @Test
    void storageKnowsNoOtherModule() {
        noClasses()
                .that()
                .resideInAPackage(STORAGE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RECOVERY, INSPECT, MIGRATION, BROKER, CLI, CLUSTER + "..", PROTOCOL)
                .check(main);
    }

    @Test
    void storageKnowsNothingOfTheCommandLineTheNetworkTheWireMessagesOrMetrics() {
        // Metrics reach the engine only through its EngineObserver seam, implemented in the broker.
        noClasses()
                .that()
                .resideInAPackage(STORAGE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "picocli..",
                        "io.netty..",
                        "org.apache.kafka.common.message..",
                        "org.apache.kafka.common.requests..",
                        "io.prometheus..",
                        "com.sun.net.httpserver..")
                .check(main);
    }

    @Test
    void onlyTheCleanerDecodesRecords() {
        // Batches are opaque bytes to the engine; the cleaner is the one component that decodes and
        // rebuilds them (kafka-clients' record classes) and keys its dedupe buffer with Apache's map.
        noClasses()
                .that()
                .resideInAPackage(STORAGE)
                .and()
                .resideOutsideOfPackage("io.kaas.storage.cleaner..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.kafka..")
                .check(main);
    }

    @Test
    void storageLayersDoNotReachTheEngine() {
        // The engine (io.kaas.storage itself) is the top of core-storage: its layers below are what the
        // offline tools use without starting an engine.
        noClasses()
                .that()
                .resideInAPackage("io.kaas.storage.(*)..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.kaas.storage")
                .check(main);
    }

    @Test
    void migrationDependsOnStorageOnly() {
        // kaas import reads Apache's files with Apache's record classes; it never needs the broker's network stack.
        noClasses()
                .that()
                .resideInAPackage(MIGRATION)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RECOVERY, INSPECT, BROKER, CLI, PROTOCOL, CLUSTER + "..", "io.netty..")
                .check(main);
    }

    @Test
    void recoveryDependsOnStorageOnly() {
        noClasses()
                .that()
                .resideInAPackage(RECOVERY)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(INSPECT, BROKER, CLI, PROTOCOL, CLUSTER + "..")
                .check(main);
    }

    @Test
    void inspectDependsOnStorageOnly() {
        noClasses()
                .that()
                .resideInAPackage(INSPECT)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RECOVERY, BROKER, CLI, PROTOCOL, CLUSTER + "..")
                .check(main);
    }

    @Test
    void brokerDependsOnStorageOnly() {
        noClasses()
                .that()
                .resideInAPackage(BROKER)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(RECOVERY, INSPECT, CLI)
                .check(main);
    }

    @Test
    void theProtocolKnowsNoHandlerNoCoordinatorAndNoBroker() {
        // Framing, decoding, dispatch and the handler interface: handlers plug in, nothing here points at them.
        noClasses()
                .that()
                .resideInAPackage(PROTOCOL)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BROKER, CLI, RECOVERY, INSPECT, CLUSTER + "..")
                .check(main);
    }

    @Test
    void clusterKnowsNoBrokerAndNamesNoBackend() {
        noClasses()
                .that()
                .resideInAPackage(CLUSTER)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BROKER, CLI, RECOVERY, INSPECT, PROTOCOL, ETCD, KUBERNETES)
                .check(main);
        noClasses()
                .that()
                .resideInAPackage(CLUSTER)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BACKEND_LIBRARIES)
                .check(main);
    }

    @Test
    void theBackendsKnowTheClusterSeamOnly() {
        noClasses()
                .that()
                .resideInAPackage(ETCD)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BROKER, CLI, PROTOCOL, KUBERNETES, "io.fabric8..")
                .check(main);
        noClasses()
                .that()
                .resideInAPackage(KUBERNETES)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BROKER, CLI, PROTOCOL, ETCD, "io.etcd..", "io.grpc..")
                .check(main);
    }

    @Test
    void theBrokerAndTheCommandLineNameNoBackend() {
        // A backend is found by the scheme of --coordinator (ClusterStoreProvider through ServiceLoader).
        noClasses()
                .that()
                .resideInAnyPackage(BROKER, CLI, PROTOCOL)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ETCD, KUBERNETES)
                .check(main);
        noClasses()
                .that()
                .resideInAnyPackage(BROKER, CLI, PROTOCOL)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BACKEND_LIBRARIES)
                .check(main);
    }

    /**
     * Each module's packages form no cycle: a package can be read (and moved) with only what it points at.
     * In core-storage the arrows run engine (root) -> cleaner -> recovery -> layout -> segment -> format -> io,
     * and state -> format.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "io.kaas.storage",
                "io.kaas.security",
                "io.kaas.protocol",
                "io.kaas.cluster",
                "io.kaas.recovery",
                "io.kaas.inspect",
                "io.kaas.migration",
                "io.kaas.broker",
                "io.kaas.cli"
            })
    void modulePackagesAreFreeOfCycles(String module) {
        slices().matching("io.kaas.(**)").should().beFreeOfCycles().check(main.that(resideInAPackage(module + "..")));
    }
}
