package io.kaas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code kaas --version}: the Maven project version, which the build writes into
 * {@code version.properties} (a filtered resource), so there is one place to bump it.
 */
public final class KaasVersion implements IVersionProvider {
    static final String RESOURCE = "version.properties";

    /** The bare version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        try (InputStream in = KaasVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        RESOURCE + " is missing from the classpath: the build did not run resource filtering");
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version");
            if (version == null || version.isBlank() || version.startsWith("${")) {
                throw new IllegalStateException(RESOURCE + " holds no filtered version: " + version);
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {"kaas " + version()};
    }
}
