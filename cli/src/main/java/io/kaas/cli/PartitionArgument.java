package io.kaas.cli;

import io.kaas.storage.TopicPartition;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A partition named on the command line as {@code TOPIC-N}, the way Apache's tools print them; the topic may itself
 * hold dashes, so the number is what follows the last one.
 */
final class PartitionArgument {
    private PartitionArgument() {}

    static TopicPartition parse(CommandSpec spec, String s) {
        int dash = s.lastIndexOf('-');
        if (dash > 0 && dash < s.length() - 1 && s.substring(dash + 1).chars().allMatch(Character::isDigit)) {
            try {
                return new TopicPartition(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
            } catch (NumberFormatException e) {
                // too long: reported below
            }
        }
        throw new ParameterException(spec.commandLine(), "Not a partition (TOPIC-N, e.g. orders-3): '" + s + "'");
    }
}
