import type { RestCall, RestMethod } from '../context.js';
import { notAuthorized, notFound } from '../errors.js';
import { parseRowId } from '../ids.js';
import { radioStation } from '../serialize.js';
import type { Payload } from '../wire.js';

function adminOnly(call: RestCall): void {
  if (call.user.role !== 'admin') throw notAuthorized('Only administrators can change internet radio stations');
}

function stationId(call: RestCall): number {
  const id = parseRowId('radioStation', call.params.required('id'));
  if (id === null) throw notFound('Internet radio station not found');
  return id;
}

function input(call: RestCall) {
  return {
    name: call.params.required('name'),
    streamUrl: call.params.required('streamUrl'),
    homePageUrl: call.params.string('homepageUrl') ?? call.params.string('homePageUrl'),
  };
}

function getInternetRadioStations(call: RestCall): Payload {
  return { internetRadioStations: { internetRadioStation: call.rc.radio.list().map(radioStation) } };
}

export const radioMethods: RestMethod[] = [
  { name: 'getInternetRadioStations', handler: getInternetRadioStations },
  {
    name: 'createInternetRadioStation',
    handler: (call) => {
      adminOnly(call);
      call.rc.radio.create(input(call));
      return undefined;
    },
  },
  {
    name: 'updateInternetRadioStation',
    handler: (call) => {
      adminOnly(call);
      call.rc.radio.update(stationId(call), input(call));
      return undefined;
    },
  },
  {
    name: 'deleteInternetRadioStation',
    handler: (call) => {
      adminOnly(call);
      call.rc.radio.delete(stationId(call));
      return undefined;
    },
  },
];
