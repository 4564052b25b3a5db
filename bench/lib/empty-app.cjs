// The app of bench/startup.mjs: nothing, as `node -e 0`, so that what is measured is the preload alone.
