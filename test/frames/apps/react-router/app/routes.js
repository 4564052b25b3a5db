import { route } from '@react-router/dev/routes';

export default [route('items', 'routes/items.jsx'), route('dev', 'routes/dev.jsx')];
