module.exports = { origin: { enabled: false }, lenses: { HttpClientLens: { bodies: true } } };
