package dev.idemlab.lab.cli;

import java.util.List;

/** An {@code on|off} option whose absence means both variants, unmitigated first. */
final class Toggle {

    private Toggle() { }

    /**
     * @param option the option's name, for the message
     * @param value {@code on}, {@code off}, or {@code null} for both
     * @throws UsageException for anything else
     */
    static List<Boolean> variants(String option, String value) {
        if (value == null) {
            return List.of(false, true);
        }
        return switch (value) {
            case "on" -> List.of(true);
            case "off" -> List.of(false);
            default -> throw new UsageException(option + " must be on or off, got '" + value + "'");
        };
    }
}
