package dev.idemlab.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.scenario.CallerResult;
import dev.idemlab.lab.scenario.ScenarioRun;
import dev.idemlab.lab.scenario.TimelineEvent;

import java.io.UncheckedIOException;
import java.util.List;

/**
 * Always an array of run objects, each with scenario, policy, store (name, version, origin, address),
 * settings, responses, charges, storageErrors, callers, note and timeline.
 */
final class JsonReport {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() { }

    static String render(List<ScenarioRun> runs) {
        ArrayNode array = MAPPER.createArrayNode();
        runs.forEach(run -> array.add(toJson(run)));
        try {
            return MAPPER.writeValueAsString(array) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode toJson(ScenarioRun run) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("scenario", run.scenario());
        node.put("policy", run.policy());
        node.put("label", run.label());
        node.set("store", store(run.store()));
        node.set("settings", MAPPER.valueToTree(run.settings()));
        node.set("responses", MAPPER.valueToTree(run.responses()));
        node.set("charges", MAPPER.valueToTree(run.charges()));
        node.put("storageErrors", run.storageErrors());
        ArrayNode callers = node.putArray("callers");
        Long holderEndMs = run.callers().stream().filter(caller -> "executed".equals(caller.outcome()))
                .map(CallerResult::endMs).findFirst().orElse(null);
        for (CallerResult caller : run.callers()) {
            ObjectNode entry = callers.addObject().put("name", caller.name()).put("startMs", caller.startMs())
                    .put("endMs", caller.endMs()).put("response", caller.response()).put("outcome", caller.outcome())
                    .put("chargesAfter", caller.chargesAfter());
            if (caller.storageErrorsAfter() != CallerResult.NOT_COUNTED) {
                entry.put("storageErrorsAfter", caller.storageErrorsAfter());
            }
            if ("waited".equals(caller.outcome()) && holderEndMs != null) {
                // How long after the holder got its answer this waiter got the replay: the wake-up delay.
                entry.put("wakeUpDelayMs", caller.endMs() - holderEndMs);
            }
        }
        node.put("note", run.note());
        ArrayNode timeline = node.putArray("timeline");
        for (TimelineEvent event : run.timeline()) {
            timeline.addObject().put("atMs", event.atMs()).put("from", event.from()).put("to", event.to())
                    .put("message", event.message());
        }
        return node;
    }

    private static ObjectNode store(ServerInfo info) {
        ObjectNode store = MAPPER.createObjectNode();
        store.put("name", info.store());
        store.put("version", info.version());
        store.put("origin", info.origin().id());
        store.put("address", info.address());
        return store;
    }
}
