package io.kaas.broker.config;

import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * One row of {@link BrokerSettings}: a broker setting declared once, with the three names it is given
 * by (its {@code server.properties} key, its {@code kaas serve} flag, its {@code KAAS_*} variable) and
 * how its value is typed, defaulted and checked (a kafka-clients {@link ConfigDef} key, so a bad value
 * is reported in Apache's words, naming the key and the rule). Immutable.
 *
 * @param key          the {@code server.properties} key: Apache's where Apache has the setting, else {@code kaas.*}
 * @param flag         the {@code kaas serve} option, e.g. {@code --segment-bytes}
 * @param env          the environment variable: {@code KAAS_} and the flag, upper case, dashes as underscores
 * @param type         how the key's text is typed (ConfigDef's types)
 * @param defaultValue the typed value when no source sets it; null = unset (the consumer's own default applies)
 * @param defaultText  the default in words, for help and docs
 * @param validator    the rule a value must meet, or null
 * @param doc          what the setting does, one or two sentences, for help and docs
 * @param flagSyntax   how the flag's and variable's text differs from the key's
 */
public record Setting(
        String key,
        String flag,
        String env,
        Type type,
        Object defaultValue,
        String defaultText,
        ConfigDef.Validator validator,
        String doc,
        FlagSyntax flagSyntax) {

    /** How a flag's (and its variable's) text maps to the key's. */
    public enum FlagSyntax {
        /** The same text as the key takes. */
        AS_KEY,
        /**
         * A duration ({@code 300} seconds, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, ISO-8601), where the
         * key takes milliseconds, as Apache's {@code *.ms} keys do.
         */
        DURATION_MS,
        /** As the key, except that {@code 0} means "not set": the default, which depends on the machine. */
        ZERO_IS_DEFAULT
    }

    public Setting {
        if (!flag.startsWith("--")) {
            throw new IllegalArgumentException(key + ": flag " + flag + " must start with --");
        }
        if (!env.equals(envOf(flag))) {
            throw new IllegalArgumentException(key + ": variable " + env + " must be " + envOf(flag));
        }
    }

    /** {@code --segment-bytes} -> {@code KAAS_SEGMENT_BYTES}: the one rule that names every variable. */
    public static String envOf(String flag) {
        return "KAAS_" + flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * The typed, checked value of {@code text} (the key's syntax), or a {@link ConfigException} naming the key
     * and the rule.
     */
    public Object parse(String text) {
        Object value = ConfigDef.parseType(key, text.trim(), type);
        if (validator != null) {
            validator.ensureValid(key, value);
        }
        return value;
    }

    /** The help text of the flag: what it does, then its key, variable and default. */
    public String helpText() {
        return doc + " (server.properties " + key + "; env " + env + "; default " + defaultText + ").";
    }
}
