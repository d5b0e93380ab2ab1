package dev.idemlab.lab.load;

/**
 * Where a running load says how far it is, for a person at a terminal. Called from a timer thread
 * of the generator, never from a client thread.
 */
public interface LoadProgress {

    /** Nothing is shown: output that is piped stays exactly the report. */
    LoadProgress NONE = new LoadProgress() {
        @Override
        public void update(String line) { }

        @Override
        public void finished(String line) { }
    };

    /** The run is going: {@code line} replaces the previous one. */
    void update(String line);

    /** The run is over: {@code line} is its last word. */
    void finished(String line);
}
