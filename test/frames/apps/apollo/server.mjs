// An Apollo Server 4 app whose resolvers call an upstream API through a RESTDataSource, DataLoader-batched
// fetches and graphql-request. Each call's line also makes an Error (the oracle): the test reads the line Node
// prints for it and expects the call's origin there.
import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { RESTDataSource } from '@apollo/datasource-rest';
import DataLoader from 'dataloader';
import { GraphQLClient, gql } from 'graphql-request';

const API = process.env.API_URL;
const printed = new Set();
/** Prints the oracle once: the line Node gives the Error made on the call's own line. */
const mark = (name, error) => printed.has(name) || (printed.add(name), console.log(`ORACLE ${name} ${error.stack.split('\n')[1].trim()}`));

class UsersAPI extends RESTDataSource {
  baseURL = API + '/';
  user(id) {
    return this.get(`users/${id}`, mark('rest', new Error()) && undefined); // call:rest
  }
}

const typeDefs = `type User { id: ID!, name: String } type Query { user(id: ID!): User, batched(ids: [ID!]!): [User], upstream: String }`;
const resolvers = {
  Query: {
    user: async (_, { id }, { dataSources }) => ({ ...(await dataSources.users.user(id)), id }),
    batched: (_, { ids }, { loader }) => Promise.all(ids.map((id) => loader.load(id))),
    upstream: async () => {
      const client = new GraphQLClient(API + '/graphql');
      const data = await client.request(gql`{ version }`, {}, mark('graphql-request', new Error()) && undefined); // call:graphql-request
      return JSON.stringify(data);
    },
  },
};

const server = new ApolloServer({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port: 0, host: '127.0.0.1' },
  context: async () => ({
    dataSources: { users: new UsersAPI() },
    loader: new DataLoader(async (ids) => {
      const res = await fetch(`${API}/users?ids=${ids.join(',')}`, mark('dataloader', new Error()) && undefined); // call:dataloader
      const users = await res.json();
      return ids.map((id) => users.find?.((u) => String(u.id) === String(id)) ?? { id });
    }),
  }),
});

async function query(body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: body }) });
  return res.text();
}
// The first call teaches Probe that the package hops (its origin is null: no app frame was there); the next has it.
console.error(await query('{ user(id: 7) { id name } }'));
console.error(await query('{ user(id: 8) { id name } }'));
console.error(await query('{ batched(ids: [1, 2]) { id } }'));
console.error(await query('{ upstream }'));
await server.stop();
