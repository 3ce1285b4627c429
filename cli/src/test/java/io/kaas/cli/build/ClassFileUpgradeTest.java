package io.kaas.cli.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ClassFileUpgradeTest {
    @Test
    void picocliComesOutAsJava8ClassFilesThatStillVerifyAndRun(@TempDir Path dir) throws Exception {
        Path original = Path.of(CommandLine.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path jar = Files.copy(original, dir.resolve("picocli.jar"));

        int upgraded = ClassFileUpgrade.upgrade(jar);

        assertThat(upgraded).isGreaterThan(100);
        List<String> entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : zip.stream().toList()) {
                entries.add(e.getName());
                if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")) {
                    byte[] bytes = zip.getInputStream(e).readAllBytes();
                    assertThat(ClassFileUpgrade.majorVersion(bytes))
                            .as(e.getName())
                            .isEqualTo(52);
                }
            }
        }
        try (ZipFile zip = new ZipFile(original.toFile())) {
            assertThat(entries)
                    .containsExactlyElementsOf(
                            zip.stream().map(ZipEntry::getName).toList());
        }
        // A fresh loader verifies the rewritten classes (the split verifier, which needs the frames) and runs them.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Class<?> commandLine = Class.forName("picocli.CommandLine", true, loader);
            assertThat(commandLine).isNotSameAs(CommandLine.class);
            Object spec = Class.forName("picocli.CommandLine$Model$CommandSpec", true, loader)
                    .getMethod("create")
                    .invoke(null);
            Object tree = commandLine.getConstructor(Object.class).newInstance(spec);
            assertThat(commandLine.getMethod("getUsageMessage").invoke(tree))
                    .asString()
                    .startsWith("Usage: ");
        }
    }
}
