package dev.idemlab.lab.report;

import dev.idemlab.lab.scenario.ScenarioRun;

import java.util.List;
import java.util.Locale;

/** The three forms a scenario report takes. */
public enum ReportFormat {
    /** Rows that mirror the post's, for laying the two side by side. */
    TABLE,
    /** An array of run objects, for machines. */
    JSON,
    /** The table as Markdown plus a sequence diagram of each run's timeline. */
    MARKDOWN;

    /** Renders the runs in this format. */
    public String render(List<ScenarioRun> runs) {
        return switch (this) {
            case TABLE -> TableReport.render(runs);
            case JSON -> JsonReport.render(runs);
            case MARKDOWN -> MarkdownReport.render(runs);
        };
    }

    /** The name on the command line. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
