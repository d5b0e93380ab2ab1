package dev.idemlab.lab.report;

import dev.idemlab.lab.scenario.CallerResult;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.TimelineEvent;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The table as Markdown, and a Mermaid sequence diagram of each run's recorded timeline. */
final class MarkdownReport {

    private MarkdownReport() { }

    static String render(List<ScenarioRun> runs) {
        StringBuilder out = new StringBuilder();
        String lastScenario = null;
        for (ScenarioRun run : runs) {
            if (!run.scenario().equals(lastScenario)) {
                out.append("## ").append(run.scenario()).append("\n\n");
                out.append("Store: ").append(run.store().describe()).append(". ")
                        .append(capitalize(Rows.settingsLine(run))).append(".\n\n");
                lastScenario = run.scenario();
            }
            out.append("### ").append(Rows.policyCell(run)).append("\n\n");
            if (!run.note().isEmpty()) {
                out.append(capitalize(run.note())).append(".\n\n");
            }
            table(run, out);
            if (Rows.isCrashTable(run)) {
                String[] row = Rows.crashRow(run);
                out.append("Read back: ").append(row[3]).append("; ").append(row[4]).append(".\n\n");
            }
            diagram(run, out);
        }
        return out.toString();
    }

    private static void table(ScenarioRun run, StringBuilder out) {
        if (Rows.isRace(run)) {
            out.append("| policy | responses | charges made |\n|---|---|---|\n");
            out.append("| ").append(Rows.policyCell(run)).append(" | `").append(Rows.list(run.responses()))
                    .append("` | `").append(Rows.list(run.charges())).append("` |\n\n");
            return;
        }
        out.append("| call | answer | charges |\n|---|---|---|\n");
        for (CallerResult caller : run.callers()) {
            out.append("| ").append(caller.name()).append(" | ").append(Rows.answer(caller)).append(" | ")
                    .append(Rows.chargesCell(run, caller)).append(" |\n");
        }
        out.append('\n');
    }

    private static void diagram(ScenarioRun run, StringBuilder out) {
        Set<String> participants = new LinkedHashSet<>();
        run.callers().forEach(caller -> participants.add(caller.name()));
        participants.add("Coordinator");
        Set<String> last = new LinkedHashSet<>();
        for (TimelineEvent event : run.timeline()) {
            for (String participant : List.of(event.from(), event.to())) {
                if (participant.equals("Store") || participant.equals("Provider")) {
                    last.add(participant);
                } else {
                    participants.add(participant);
                }
            }
        }
        if (last.contains("Store")) {
            participants.add("Store");
        }
        participants.add("Provider");
        out.append("```mermaid\nsequenceDiagram\n");
        int i = 0;
        java.util.Map<String, String> ids = new java.util.HashMap<>();
        for (String participant : participants) {
            String id = "P" + i++;
            ids.put(participant, id);
            out.append("    participant ").append(id).append(" as ").append(mermaidText(participant)).append('\n');
        }
        for (TimelineEvent event : run.timeline()) {
            out.append("    ").append(ids.getOrDefault(event.from(), "Coordinator"))
                    .append(event.reply() ? "-->>" : "->>").append(ids.getOrDefault(event.to(), "Coordinator"))
                    .append(": t=").append(event.atMs()).append(" ms ").append(mermaidText(event.message())).append('\n');
        }
        out.append("```\n\n");
    }

    /** Mermaid ends a message at ';' and starts a comment at '%%' and an entity at '#'. */
    private static String mermaidText(String text) {
        return text.replace(';', ',').replace('#', ' ').replace("%%", "%");
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
