package io.kaas.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module arrows, cli -> {broker, inspect, recovery} -> core-storage, and what the engine must not
 * know: Maven's dependency list only stops an arrow that has no dependency behind it, this stops the
 * rest (a stray import through a transitive dependency, a dependency re-added "for one class"). Lives
 * in the cli's tests because only its classpath holds every module's classes.
 */
class ArchitectureTest {
    private static final String STORAGE = "io.kaas.storage..";
    private static final String RECOVERY = "io.kaas.recovery..";
    private static final String INSPECT = "io.kaas.inspect..";
    private static final String BROKER = "io.kaas.broker..";
    private static final String CLI = "io.kaas.cli..";

    private static JavaClasses main;

    /** Main code only: test classes (including test-jars, such as core-storage's fixtures) may reach anywhere. */
    private static final ImportOption NO_TEST_JARS = (Location location) -> !location.contains("-tests.jar");

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(NO_TEST_JARS).importPackages("io.kaas");
    }

    @Test
    void storageKnowsNoOtherModule() {
        noClasses().that().resideInAPackage(STORAGE)
                .should().dependOnClassesThat().resideInAnyPackage(RECOVERY, INSPECT, BROKER, CLI)
                .check(main);
    }

    @Test
    void storageKnowsNothingOfTheCommandLineTheNetworkTheWireMessagesOrMetrics() {
        // Metrics reach the engine only through its EngineObserver seam, implemented in the broker.
        noClasses().that().resideInAPackage(STORAGE)
                .should().dependOnClassesThat().resideInAnyPackage("picocli..", "io.netty..",
                        "org.apache.kafka.common.message..", "org.apache.kafka.common.requests..",
                        "io.prometheus..", "com.sun.net.httpserver..")
                .check(main);
    }

    @Test
    void onlyTheCleanerDecodesRecords() {
        // Batches are opaque bytes to the engine; the cleaner is the one component that decodes and
        // rebuilds them (kafka-clients' record classes) and keys its dedupe buffer with Apache's map.
        noClasses().that().resideInAPackage(STORAGE).and().resideOutsideOfPackage("io.kaas.storage.cleaner..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..")
                .check(main);
    }

    @Test
    void recoveryDependsOnStorageOnly() {
        noClasses().that().resideInAPackage(RECOVERY)
                .should().dependOnClassesThat().resideInAnyPackage(INSPECT, BROKER, CLI)
                .check(main);
    }

    @Test
    void inspectDependsOnStorageOnly() {
        noClasses().that().resideInAPackage(INSPECT)
                .should().dependOnClassesThat().resideInAnyPackage(RECOVERY, BROKER, CLI)
                .check(main);
    }

    @Test
    void brokerDependsOnStorageOnly() {
        noClasses().that().resideInAPackage(BROKER)
                .should().dependOnClassesThat().resideInAnyPackage(RECOVERY, INSPECT, CLI)
                .check(main);
    }
}
